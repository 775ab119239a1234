// Actions on Kafka. Redrive reads a DLQ topic from Varal's own group's committed offsets,
// produces each record to its original topic with an idempotent producer and acks=all,
// and commits Varal's group only after the produce was acknowledged: a record is always
// in the DLQ topic (Kafka keeps it) and, once committed past, in its destination too; a
// failure between the two repeats a record, never drops one. Purge deletes a DLQ topic's
// records up to its end offset. Offset reset moves a group's committed offsets, and is
// refused while the group has live members (they would overwrite it with their next commit).
import type { Admin, Kafka, Producer } from "kafkajs";
import { z } from "zod";
import { velocity } from "../../actions/pace";
import type { QueueActionHandler, QueueActionTarget, RunContext } from "../../actions/types";
import { purgeParams, requireTypedName, type PurgeParams } from "../../actions/purge";
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import { createKafka } from "./adapter";
import { originalTopicFromHeaders } from "./dlq";
import { redrivePosition, type PartitionView } from "./parse";
import { KafkaWire, partitionKey, type PartitionRange, type WireRecord } from "./wire";

const ACTION_TIMEOUT_MS = 15_000;
/** Bytes read per DLQ partition per round of a redrive. */
const REDRIVE_READ_BYTES = 1 << 20;
/** Records produced per round at most, so progress and cancel stay responsive. */
const REDRIVE_BATCH = 5_000;
/**
 * Bytes produced per round at most: kafkajs puts a topic-partition's share of a send in
 * one record batch, which the broker refuses past message.max.bytes (1 MiB by default).
 */
const REDRIVE_BATCH_BYTES = 512 * 1024;
/** The header each redriven copy carries: action, DLQ topic, partition and offset. */
export const REDRIVE_HEADER = "x-varal-redrive";

function kafkaConfig(target: QueueActionTarget): BrokerConfigOf<"kafka"> {
  return target.broker as BrokerConfigOf<"kafka">;
}

function topicOf(target: QueueActionTarget): string {
  return String(target.queue.facts.topic);
}

function groupOf(target: QueueActionTarget): string {
  return String(target.queue.facts.group);
}

function isDeadLetterTopic(target: QueueActionTarget["queue"]): boolean {
  return target.kind === "kafka" && target.facts.detectedBy !== undefined;
}

/** Opens the clients an action needs and closes them whatever happens. */
async function withKafka<T>(target: QueueActionTarget, fn: (clients: { kafka: Kafka; admin: Admin; wire: KafkaWire }) => Promise<T>): Promise<T> {
  const kafka = createKafka(kafkaConfig(target), ACTION_TIMEOUT_MS);
  const admin = kafka.admin();
  const wire = new KafkaWire(kafka);
  try {
    await admin.connect();
    // kafkajs's admin learns the brokers only from a metadata read; until one, a group
    // request finds "no brokers in the broker pool".
    await admin.describeCluster();
    await wire.connect();
    return await fn({ kafka, admin, wire });
  } catch (error) {
    if (error instanceof VaralError || (error as Error).name === "AbortError") throw error;
    throw new Error(`Kafka at ${kafkaConfig(target).brokers.join(",")}: ${(error as Error).message}`);
  } finally {
    await admin.disconnect().catch(() => undefined);
    await wire.disconnect().catch(() => undefined);
  }
}

async function topicRanges(wire: KafkaWire, topic: string): Promise<PartitionRange[]> {
  const [metadata] = await wire.metadata([topic]);
  if (!metadata || metadata.partitions.length === 0) throw new VaralError("not_found", `Topic ${topic} does not exist (any more): reload the queue list.`);
  return wire.ranges(metadata.partitions.map((p) => ({ topic, partition: p.partition })));
}

async function committedOffsets(admin: Admin, groupId: string, topic: string): Promise<Map<number, number>> {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return new Map((offsets?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
}

// --- redrive ---------------------------------------------------------------------------

const redriveParams = z.object({
  limit: z.number().int().positive().optional(),
  maxPerSecond: z.number().positive().optional(),
  /** A topic to send every record to, instead of the one its headers or the naming rule give. */
  destination: z.string().min(1).max(249).optional(),
});
type RedriveParams = z.infer<typeof redriveParams>;

/** Where a dead letter goes: the chosen topic, else its header, else the naming rule. */
export function redriveDestination(record: Pick<WireRecord, "headers">, params: RedriveParams, byName: string | null): string | null {
  return params.destination ?? originalTopicFromHeaders(record.headers) ?? byName;
}

function recordBytes(record: WireRecord): number {
  let bytes = (record.key?.length ?? 0) + (record.value?.length ?? 0);
  for (const [name, value] of Object.entries(record.headers)) bytes += name.length + (Array.isArray(value) ? value.reduce((sum, entry) => sum + entry.length, 0) : (value?.length ?? 0));
  return bytes;
}

/** The first records, at most `count` and `bytes` of them, but always at least one. */
function takeWithin(records: WireRecord[], count: number, bytes: number): WireRecord[] {
  let total = 0;
  let taken = 0;
  while (taken < Math.min(count, records.length)) {
    total += recordBytes(records[taken]);
    if (taken > 0 && total > bytes) break;
    taken++;
  }
  return records.slice(0, taken);
}

async function redriveRun(context: RunContext<RedriveParams>): Promise<unknown> {
  const topic = topicOf(context);
  const group = kafkaConfig(context).redriveGroup;
  // A record without a header falls back to the naming rule; a topic found by its records'
  // headers may collect dead letters of many topics, so it has no fallback.
  const byName = context.queue.facts.detectedBy === "name" ? ((context.queue.facts.deadLetterOf as string | null) ?? null) : null;
  const limit = context.params.limit ?? Number.MAX_SAFE_INTEGER;
  return withKafka(context, async ({ kafka, admin, wire }) => {
    const ranges = await topicRanges(wire, topic);
    const committed = await committedOffsets(admin, group, topic);
    // Records that arrive after the start are left for the next redrive: a consumer that
    // keeps failing would otherwise keep this one running forever.
    const positions = new Map(ranges.map((range) => [range.partition, redrivePosition(committed.get(range.partition) ?? -1, range.start)]));
    const ends = new Map(ranges.map((range) => [range.partition, range.end]));
    const total = Math.min(limit, ranges.reduce((sum, range) => sum + Math.max(0, range.end - positions.get(range.partition)!), 0));
    await context.progress(0, total);
    const existing = new Set<string>();
    const checkTopic = async (name: string) => {
      if (existing.has(name)) return;
      const [metadata] = await wire.metadata([name]).catch(() => []);
      if (!metadata || metadata.partitions.length === 0) {
        throw new VaralError("not_found", `Topic ${name} does not exist: create it, or give params.destination. Nothing after this point was redriven.`);
      }
      existing.add(name);
    };
    const producer: Producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, retry: { retries: 3 } });
    await producer.connect();
    const pace = velocity(context.params.maxPerSecond, context.signal);
    const batchLimit = context.params.maxPerSecond ? Math.max(1, Math.min(REDRIVE_BATCH, Math.floor(context.params.maxPerSecond / 5))) : REDRIVE_BATCH;
    let moved = 0;
    const destinations = new Map<string, number>();
    try {
      while (moved < limit) {
        if (context.signal.aborted) throw context.signal.reason;
        // A partition whose log start moved past our position (retention, a purge) resumes there.
        const fresh = await wire.ranges([...positions.keys()].map((partition) => ({ topic, partition })));
        for (const range of fresh) positions.set(range.partition, Math.max(positions.get(range.partition)!, range.start));
        const open = [...positions].filter(([partition, position]) => position < ends.get(partition)!);
        if (open.length === 0) break;
        const records = (await wire.records(open.map(([partition, offset]) => ({ topic, partition, offset })), REDRIVE_READ_BYTES))
          .filter((record) => record.offset < ends.get(record.partition)!)
          .sort((a, b) => a.partition - b.partition || a.offset - b.offset);
        if (records.length === 0) {
          const [partition, offset] = open[0];
          throw new Error(`Kafka returned no record at offset ${offset} of partition ${partition} of ${topic}, whose end was ${ends.get(partition)} when the redrive started`);
        }
        const batch = takeWithin(records, Math.min(batchLimit, limit - moved), REDRIVE_BATCH_BYTES);
        const byTopic = new Map<string, Array<{ key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer | Buffer[]> }>>();
        for (const record of batch) {
          const destination = redriveDestination(record, context.params, byName);
          if (!destination) {
            throw new VaralError(
              "invalid_input",
              `Record ${record.partition}:${record.offset} of ${topic} names no original topic (no x-original-topic header, and the name follows no DLQ rule): give params.destination.`,
            );
          }
          await checkTopic(destination);
          const headers: Record<string, Buffer | Buffer[]> = {};
          for (const [name, value] of Object.entries(record.headers)) if (value !== null) headers[name] = value;
          headers[REDRIVE_HEADER] = Buffer.from(`${context.actionId}:${topic}:${record.partition}:${record.offset}`);
          const list = byTopic.get(destination) ?? [];
          list.push({ key: record.key, value: record.value, headers });
          byTopic.set(destination, list);
        }
        await producer.sendBatch({ acks: -1, topicMessages: [...byTopic].map(([name, messages]) => ({ topic: name, messages })) });
        // Only now is each copy safe: commit Varal's group past what was produced.
        const next = new Map<number, number>();
        for (const record of batch) next.set(record.partition, record.offset + 1);
        await wire.commit(group, topic, [...next].map(([partition, offset]) => ({ partition, offset })));
        for (const [partition, offset] of next) positions.set(partition, offset);
        for (const [name, messages] of byTopic) destinations.set(name, (destinations.get(name) ?? 0) + messages.length);
        moved += batch.length;
        await context.progress(moved, total);
        await pace(batch.length);
      }
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
    return { moved, destinations: Object.fromEntries(destinations) };
  });
}

export const redrive: QueueActionHandler<RedriveParams> = {
  kind: "redrive",
  brokerKind: "kafka",
  params: redriveParams,
  appliesTo: isDeadLetterTopic,
  check(target, params) {
    if (!isDeadLetterTopic(target.queue)) throw new VaralError("invalid_input", `${target.queue.id} is not a DLQ topic: redrive reads a dead-letter topic.`);
    if (params.destination !== undefined && params.destination === topicOf(target)) {
      throw new VaralError("invalid_input", `params.destination is the DLQ topic itself: name the topic the records should go back to.`);
    }
  },
  async dryRun(target, params) {
    const depth = target.queue.depth ?? 0;
    const original = target.queue.facts.deadLetterOf as string | null;
    return {
      wouldAffect: Math.min(depth, params.limit ?? depth),
      sample: [],
      warnings: [
        params.destination
          ? `Every record goes to topic ${params.destination}.`
          : `Each record goes to the topic its x-original-topic (or Spring / Kafka Connect) header names${original ? `, else to ${original}` : ""}; one with neither stops the redrive.`,
        "Copies keep key, value and headers and gain x-varal-redrive; they are produced with acks=all by an idempotent producer, and Varal's group commits past each record only after that.",
        "The records stay in the DLQ topic (Kafka keeps them until retention); purge removes them.",
      ],
    };
  },
  run: redriveRun,
};

// --- purge -----------------------------------------------------------------------------


export const purge: QueueActionHandler<PurgeParams> = {
  kind: "purge",
  brokerKind: "kafka",
  params: purgeParams,
  // Deleting records of a topic takes them from every group: Varal does it on DLQ topics only.
  appliesTo: isDeadLetterTopic,
  check(target, params, mode) {
    if (!isDeadLetterTopic(target.queue)) {
      throw new VaralError("invalid_input", `${target.queue.id} is not a DLQ topic: deleting a topic's records takes them from every consumer group, so Varal purges DLQ topics only.`);
    }
    requireTypedName(target, params, mode);
  },
  async dryRun(target) {
    const partitions = (target.queue.facts.partitions as PartitionView[] | undefined) ?? [];
    return {
      wouldAffect: partitions.reduce((sum, p) => sum + (p.logEnd - p.logStart), 0),
      sample: [],
      warnings: [`Deletes every record of topic ${topicOf(target)} up to its end offset, redriven or not, for every consumer group. It cannot be undone.`],
    };
  },
  async run(context) {
    const topic = topicOf(context);
    return withKafka(context, async ({ admin, wire }) => {
      const ranges = await topicRanges(wire, topic);
      const total = ranges.reduce((sum, range) => sum + (range.end - range.start), 0);
      await context.progress(0, total);
      // kafkajs finds the partitions' leaders in metadata it loads only when asked for.
      await admin.fetchTopicMetadata({ topics: [topic] });
      await admin.deleteTopicRecords({ topic, partitions: ranges.map((range) => ({ partition: range.partition, offset: String(range.end) })) });
      await context.progress(total, total);
      return { deleted: total, upTo: Object.fromEntries(ranges.map((range) => [range.partition, range.end])) };
    });
  },
};

// --- offset reset ----------------------------------------------------------------------

const offsetResetParams = z
  .object({
    to: z.enum(["earliest", "latest", "timestamp", "offset"]),
    /** A time (ISO 8601 or Unix milliseconds) for "timestamp"; an offset for "offset". */
    value: z.union([z.number(), z.string().min(1).max(64)]).optional(),
    partitions: z.array(z.number().int().min(0)).min(1).max(10_000).optional(),
  })
  .superRefine((params, issues) => {
    if (params.to === "timestamp" && (params.value === undefined || Number.isNaN(new Date(params.value).getTime()))) {
      issues.addIssue({ code: "custom", path: ["value"], message: 'give value as a time, ISO 8601 ("2026-11-29T03:00:00Z") or Unix milliseconds' });
    }
    if (params.to === "offset" && !(typeof params.value === "number" && Number.isInteger(params.value) && params.value >= 0)) {
      issues.addIssue({ code: "custom", path: ["value"], message: "give value as a whole offset, 0 or more" });
    }
  });
type OffsetResetParams = z.infer<typeof offsetResetParams>;

export interface OffsetMove {
  partition: number;
  from: number | null;
  to: number;
  logStart: number;
  logEnd: number;
}

function refuseWhileMembers(target: QueueActionTarget, members: number): void {
  if (members > 0) {
    throw new VaralError(
      "conflict",
      `Consumer group ${groupOf(target)} has ${members} live member(s): stop its consumers first. A live member would overwrite the reset with its next commit, and Kafka refuses it.`,
    );
  }
}

/** The offset each chosen partition would move to. */
async function plannedMoves(target: QueueActionTarget, params: OffsetResetParams, admin: Admin, wire: KafkaWire): Promise<OffsetMove[]> {
  const topic = topicOf(target);
  const ranges = await topicRanges(wire, topic);
  const chosen = params.partitions ?? ranges.map((range) => range.partition);
  const unknown = chosen.filter((partition) => !ranges.some((range) => range.partition === partition));
  if (unknown.length > 0) {
    throw new VaralError("invalid_input", `Topic ${topic} has partitions 0 to ${ranges.length - 1}; there is no partition ${unknown.join(", ")}.`);
  }
  const committed = await committedOffsets(admin, groupOf(target), topic);
  const byTime = params.to === "timestamp" ? await wire.offsetsForTime(chosen.map((partition) => ({ topic, partition })), new Date(params.value!).getTime()) : null;
  return ranges
    .filter((range) => chosen.includes(range.partition))
    .map((range) => {
      const from = committed.get(range.partition) ?? -1;
      let to: number;
      if (params.to === "earliest") to = range.start;
      else if (params.to === "latest") to = range.end;
      else if (params.to === "timestamp") to = byTime!.get(partitionKey(range))!;
      else {
        to = params.value as number;
        if (to < range.start || to > range.end) {
          throw new VaralError("invalid_input", `Offset ${to} is outside partition ${range.partition} of ${topic}, which holds ${range.start} to ${range.end}: choose an offset in that range.`);
        }
      }
      return { partition: range.partition, from: from >= 0 ? from : null, to, logStart: range.start, logEnd: range.end };
    });
}

export const offsetReset: QueueActionHandler<OffsetResetParams> = {
  kind: "offset-reset",
  brokerKind: "kafka",
  params: offsetResetParams,
  appliesTo: (queue) => queue.kind === "kafka" && !isDeadLetterTopic(queue) && queue.facts.topicMissing !== true,
  check(target) {
    if (isDeadLetterTopic(target.queue)) throw new VaralError("invalid_input", `${target.queue.id} is a DLQ topic: redrive or purge it instead.`);
    refuseWhileMembers(target, target.queue.consumers ?? 0);
  },
  async dryRun(target, params) {
    const moves = await withKafka(target, ({ admin, wire }) => plannedMoves(target, params, admin, wire));
    const skipped = moves.reduce((sum, move) => sum + Math.max(0, move.to - (move.from ?? move.logStart)), 0);
    const reread = moves.reduce((sum, move) => sum + Math.max(0, (move.from ?? move.logStart) - move.to), 0);
    return {
      wouldAffect: skipped + reread,
      sample: moves,
      warnings: [
        ...(skipped > 0 ? [`The group skips ${skipped} record(s) it has not read: they stay in the topic, but this group will not see them.`] : []),
        ...(reread > 0 ? [`The group reads ${reread} record(s) again.`] : []),
        "Refused while the group has live members; stop its consumers first.",
      ],
    };
  },
  async run(context) {
    const topic = topicOf(context);
    return withKafka(context, async ({ admin, wire }) => {
      // The snapshot may be seconds old: ask the group itself.
      const { groups } = await admin.describeGroups([groupOf(context)]);
      refuseWhileMembers(context, groups[0]?.members.length ?? 0);
      const moves = await plannedMoves(context, context.params, admin, wire);
      await context.progress(0, moves.length);
      await wire.commit(groupOf(context), topic, moves.map((move) => ({ partition: move.partition, offset: move.to })));
      await context.progress(moves.length, moves.length);
      return { group: groupOf(context), topic, partitions: moves.map(({ partition, from, to }) => ({ partition, from, to })) };
    });
  },
};

export const kafkaHandlers = [redrive, purge, offsetReset] as QueueActionHandler<never>[];
