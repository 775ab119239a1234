// Kafka: consumer groups on topics with lag in records and in seconds, a status per
// partition and group from Burrow's rules over a sliding window, hot and under-replicated
// partitions, and DLQ topics as queues of their own. Everything is read in few requests:
// one Metadata, one ListOffsets per leader for all partitions, one DescribeGroups, one
// OffsetFetch per group with bounded concurrency, and one Fetch per leader for the
// records that date the committed offsets.
import { AssignerProtocol, Kafka, logLevel, type Admin, type GroupDescription } from "kafkajs";
import type { BrokerConfigOf } from "../../config/schema";
import { abortable, mapBounded, type AdapterContext, type BrokerAdapter, type PollResult, type QueueObservation } from "../types";
import { originalTopicByName, originalTopicFromHeaders, type DeadLetterTopic } from "./dlq";
import { deadLetterObservation, groupObservation, partitionLag, redrivePosition, type MemberView, type PartitionView } from "./parse";
import { judgePartition, pushSample, type OffsetSample, type PartitionVerdict } from "./status";
import { interpolateWrittenAt, pushEndSample, timeLag, type EndSample, type TimeLag } from "./time-lag";
import { KafkaWire, partitionKey, type PartitionMetadata, type PartitionRange, type TopicMetadata } from "./wire";

const GROUP_CONCURRENCY = 16;
/** Kafka's own topics (committed offsets, transactions) are not queues. */
const INTERNAL_TOPIC = /^__/;
/** End-offset samples kept per partition for interpolated time lag. */
const END_SAMPLES_KEPT = 120;
/** Topics whose last record is read per poll to find DLQ headers; each topic is read once. */
const HEADER_CHECKS_PER_POLL = 50;
/** Bytes asked per partition when dating a committed offset: the first record is enough. */
const DATING_BYTES_PER_PARTITION = 1024;

export function createKafka(config: BrokerConfigOf<"kafka">, timeoutMs: number): Kafka {
  return new Kafka({
    clientId: config.clientId,
    brokers: config.brokers,
    connectionTimeout: Math.min(timeoutMs, 3_000),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
}

interface GroupMember {
  memberId: string;
  clientId: string;
  host: string;
  /** Partitions owned, by topic. */
  assignment: Record<string, number[]>;
}

/** A group's live members with what each owns (empty while the group rebalances). */
export function groupMembers(description: GroupDescription | undefined): GroupMember[] {
  return (description?.members ?? []).map((member) => {
    const decoded = member.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(member.memberAssignment) : null;
    return { memberId: member.memberId, clientId: member.clientId, host: member.clientHost, assignment: decoded?.assignment ?? {} };
  });
}

/** The members as one topic's queue shows them: those that own some of it, or nothing yet. */
function membersOn(members: GroupMember[], topic: string): MemberView[] {
  return members
    .filter((member) => topic in member.assignment || Object.keys(member.assignment).length === 0)
    .map((member) => ({ memberId: member.memberId, clientId: member.clientId, host: member.host, partitions: [...(member.assignment[topic] ?? [])].sort((a, b) => a - b) }));
}

interface GroupRead {
  group: string;
  description: GroupDescription | undefined;
  /** Committed offset per partition key. */
  committed: Map<string, number>;
  topics: Set<string>;
}

export class KafkaAdapter implements BrokerAdapter {
  readonly kind = "kafka" as const;
  private readonly kafka: Kafka;
  private admin: Admin | null = null;
  private wire: KafkaWire | null = null;
  /** Burrow windows per group and partition. */
  private windows = new Map<string, OffsetSample[]>();
  /** (end offset, time) samples per partition, for interpolated time lag. */
  private endSamples = new Map<string, EndSample[]>();
  private lastEnds = new Map<string, { at: number; end: number }>();
  /** Timestamps of the records at the offsets being waited on, kept while still waited on. */
  private recordTimes = new Map<string, number>();
  /** The DLQ header verdict of each topic whose last record was read. */
  private headerVerdicts = new Map<string, string | null>();

  constructor(
    private readonly config: BrokerConfigOf<"kafka">,
    private readonly context: AdapterContext,
    timeoutMs: number,
  ) {
    this.kafka = createKafka(config, timeoutMs);
  }

  private async connected(signal: AbortSignal): Promise<{ admin: Admin; wire: KafkaWire }> {
    if (!this.admin) {
      const admin = this.kafka.admin();
      this.context.countCalls();
      await abortable(admin.connect(), signal);
      this.admin = admin;
    }
    if (!this.wire) {
      const wire = new KafkaWire(this.kafka);
      await abortable(wire.connect(), signal);
      this.wire = wire;
    }
    return { admin: this.admin, wire: this.wire };
  }

  async poll(signal: AbortSignal): Promise<PollResult> {
    try {
      return await abortable(this.read(signal), signal);
    } catch (error) {
      // A broken connection is rebuilt on the next poll rather than reused.
      await this.close();
      if (signal.aborted) throw error;
      throw new Error(
        `Kafka at ${this.config.brokers.join(",")} failed: ${(error as Error).message}; check brokers.${this.config.name}.brokers and that the broker is running`,
      );
    }
  }

  private async read(signal: AbortSignal): Promise<PollResult> {
    const { admin, wire } = await this.connected(signal);
    const now = Date.now();
    const topics = (await wire.metadata()).filter((topic) => !INTERNAL_TOPIC.test(topic.topic));
    this.context.countCalls();
    const metadataByTopic = new Map(topics.map((topic) => [topic.topic, topic]));
    const ranges = new Map(
      (await wire.ranges(topics.flatMap((topic) => topic.partitions.map((p) => ({ topic: topic.topic, partition: p.partition }))))).map((range) => [partitionKey(range), range]),
    );
    this.context.countCalls(2);
    const rates = this.recordEnds(ranges, now);

    const groups = await this.readGroups(admin);
    const warnings = groups.failures;
    const deadLetterTopics = await this.findDeadLetterTopics(wire, topics, ranges);
    const redriveCommitted = await this.committedOf(admin, this.config.redriveGroup, deadLetterTopics.map((dlq) => dlq.topic));

    // Which offsets each partition is waiting on; their records date the lag.
    const waitedOn: Array<{ topic: string; partition: number; offset: number }> = [];
    const positionOf = (topic: string, partition: number, committed: number): number | null => {
      const range = ranges.get(partitionKey({ topic, partition }));
      if (!range || committed < 0) return null;
      const position = redrivePosition(committed, range.start);
      return position < range.end ? position : null;
    };
    for (const read of groups.reads) {
      for (const [key, committed] of read.committed) {
        const [topic, partition] = splitKey(key);
        const position = positionOf(topic, partition, committed);
        if (position !== null) waitedOn.push({ topic, partition, offset: position });
      }
    }
    for (const dlq of deadLetterTopics) {
      for (const p of metadataByTopic.get(dlq.topic)?.partitions ?? []) {
        const range = ranges.get(partitionKey({ topic: dlq.topic, partition: p.partition }))!;
        const position = positionOf(dlq.topic, p.partition, redriveCommitted.get(partitionKey({ topic: dlq.topic, partition: p.partition })) ?? range.start);
        if (position !== null) waitedOn.push({ topic: dlq.topic, partition: p.partition, offset: position });
      }
    }
    await this.dateRecords(wire, waitedOn);
    const lagOf = (topic: string, partition: number, committed: number): TimeLag | null => {
      const position = positionOf(topic, partition, committed);
      if (position === null) return committed >= 0 ? { seconds: 0, source: "record" } : null;
      const written = this.recordTimes.get(`${partitionKey({ topic, partition })}\u0000${position}`);
      if (written !== undefined) return timeLag(written, now, "record");
      const estimate = interpolateWrittenAt(this.endSamples.get(partitionKey({ topic, partition })) ?? [], position);
      return estimate ? timeLag(estimate.at, now, estimate.source) : null;
    };

    /** A partition as a queue shows it; its time lag is dated from `waitingFrom`. */
    const partitionView = (
      topic: string,
      p: PartitionMetadata,
      committed: number,
      lag: number | null,
      waitingFrom: number,
      owner: string | null,
      verdict: PartitionVerdict | null,
    ): PartitionView => {
      const key = partitionKey({ topic, partition: p.partition });
      const range = ranges.get(key)!;
      const time = lagOf(topic, p.partition, waitingFrom);
      return {
        partition: p.partition,
        committed,
        logStart: range.start,
        logEnd: range.end,
        lag,
        lagSeconds: time?.seconds ?? null,
        lagSecondsFrom: time?.source ?? null,
        owner,
        status: verdict?.status ?? null,
        rule: verdict?.rule ?? null,
        rateIn: rates.get(key) ?? null,
        underReplicated: p.isr.length < p.replicas.length,
      };
    };

    const dlqNameOf = new Map(deadLetterTopics.filter((dlq) => dlq.originalTopic).map((dlq) => [dlq.originalTopic!, `${this.config.redriveGroup}@${dlq.topic}`]));
    const observations: QueueObservation[] = [];
    const seenWindows = new Set<string>();
    for (const read of groups.reads) {
      const members = groupMembers(read.description);
      const owners = new Map(members.flatMap((member) => Object.entries(member.assignment).flatMap(([topic, partitions]) => partitions.map((partition) => [partitionKey({ topic, partition }), member.clientId] as const))));
      const state = read.description?.state ?? "Unknown";
      for (const topic of read.topics) {
        const metadata = metadataByTopic.get(topic);
        if (!metadata) {
          observations.push(missingTopicObservation(read.group, topic, state, members.length));
          continue;
        }
        const partitions = metadata.partitions.map((p): PartitionView => {
          const key = partitionKey({ topic, partition: p.partition });
          const range = ranges.get(key)!;
          const committed = read.committed.get(key) ?? -1;
          const lag = partitionLag(committed, range.end);
          const owner = owners.get(key) ?? null;
          const windowKey = `${read.group}\u0000${key}`;
          let verdict: PartitionVerdict | null = null;
          if (lag !== null) {
            seenWindows.add(windowKey);
            const samples = pushSample(this.windows.get(windowKey) ?? [], { at: now, committed, lag }, this.config.statusWindow);
            this.windows.set(windowKey, samples);
            verdict = judgePartition(samples, this.config.statusWindow, owner);
          }
          return partitionView(topic, p, committed, lag, committed, owner, verdict);
        });
        observations.push(
          groupObservation({
            group: read.group,
            topic,
            state,
            members: membersOn(members, topic),
            partitions,
            dlqName: dlqNameOf.get(topic) ?? null,
          }),
        );
      }
    }
    for (const key of this.windows.keys()) if (!seenWindows.has(key)) this.windows.delete(key);

    for (const dlq of deadLetterTopics) {
      const partitions = metadataByTopic.get(dlq.topic)!.partitions.map((p): PartitionView => {
        const key = partitionKey({ topic: dlq.topic, partition: p.partition });
        const range = ranges.get(key)!;
        const committed = redriveCommitted.get(key) ?? -1;
        const position = redrivePosition(committed, range.start);
        return partitionView(dlq.topic, p, committed, Math.max(0, range.end - position), position, null, null);
      });
      observations.push(deadLetterObservation({ group: this.config.redriveGroup, topic: dlq.topic, originalTopic: dlq.originalTopic, detectedBy: dlq.detectedBy, partitions }));
    }

    const underReplicated = topics.flatMap((topic) => topic.partitions.filter((p) => p.isr.length < p.replicas.length).map((p) => `${topic.topic}-${p.partition}`));
    if (underReplicated.length > 0) {
      warnings.push(`${underReplicated.length} under-replicated partition(s): ${underReplicated.slice(0, 10).join(", ")}${underReplicated.length > 10 ? ", ..." : ""}`);
    }
    return {
      queues: observations,
      health: {
        facts: {
          topics: topics.length,
          partitions: ranges.size,
          consumerGroups: groups.reads.length,
          deadLetterTopics: deadLetterTopics.length,
          underReplicatedPartitions: underReplicated.length,
        },
        warnings,
      },
    };
  }

  /** Records end offsets: rates per partition, and samples for interpolated time lag. */
  private recordEnds(ranges: Map<string, PartitionRange>, now: number): Map<string, number> {
    const rates = new Map<string, number>();
    for (const [key, range] of ranges) {
      const previous = this.lastEnds.get(key);
      if (previous && now > previous.at && range.end >= previous.end) rates.set(key, ((range.end - previous.end) * 1000) / (now - previous.at));
      this.lastEnds.set(key, { at: now, end: range.end });
      this.endSamples.set(key, pushEndSample(this.endSamples.get(key) ?? [], { at: now, end: range.end }, END_SAMPLES_KEPT));
    }
    for (const key of this.lastEnds.keys()) {
      if (!ranges.has(key)) {
        this.lastEnds.delete(key);
        this.endSamples.delete(key);
      }
    }
    return rates;
  }

  private async readGroups(admin: Admin): Promise<{ reads: GroupRead[]; failures: string[] }> {
    const { groups } = await admin.listGroups();
    this.context.countCalls();
    const ids = groups
      .filter((group) => (group.protocolType === "consumer" || group.protocolType === "") && group.groupId !== this.config.redriveGroup)
      .map((group) => group.groupId);
    if (ids.length === 0) return { reads: [], failures: [] };
    const described = await admin.describeGroups(ids);
    this.context.countCalls();
    const descriptions = new Map(described.groups.map((group) => [group.groupId, group]));
    const failures: string[] = [];
    const reads = await mapBounded(ids, GROUP_CONCURRENCY, async (group): Promise<GroupRead | null> => {
      const description = descriptions.get(group);
      try {
        const committed = await this.committedOf(admin, group);
        const topics = new Set([...committed.keys()].map((key) => splitKey(key)[0]));
        for (const member of groupMembers(description)) for (const topic of Object.keys(member.assignment)) topics.add(topic);
        return { group, description, committed, topics };
      } catch (error) {
        // One group's coordinator moving (or the group vanishing) must not hide the others.
        failures.push(`consumer group ${group}: offsets unreadable this poll (${(error as Error).message})`);
        return null;
      }
    });
    return { reads: reads.filter((read): read is GroupRead => read !== null), failures };
  }

  private async committedOf(admin: Admin, groupId: string, topics?: string[]): Promise<Map<string, number>> {
    const committed = new Map<string, number>();
    if (topics && topics.length === 0) return committed;
    this.context.countCalls();
    for (const topic of await admin.fetchOffsets({ groupId, topics })) {
      for (const p of topic.partitions) {
        const offset = Number(p.offset);
        if (offset >= 0) committed.set(partitionKey({ topic: topic.topic, partition: p.partition }), offset);
      }
    }
    return committed;
  }

  /** DLQ topics by naming rule, and by headers of their last record (each topic read once). */
  private async findDeadLetterTopics(wire: KafkaWire, topics: TopicMetadata[], ranges: Map<string, PartitionRange>): Promise<DeadLetterTopic[]> {
    const found: DeadLetterTopic[] = [];
    const toRead: Array<{ topic: string; partition: number; offset: number }> = [];
    for (const { topic, partitions } of topics) {
      const byName = originalTopicByName(topic, this.config.dlqSuffixes);
      if (byName !== null) {
        found.push({ topic, originalTopic: byName, detectedBy: "name" });
        continue;
      }
      const verdict = this.headerVerdicts.get(topic);
      if (verdict !== undefined) {
        if (verdict !== null) found.push({ topic, originalTopic: verdict, detectedBy: "header" });
        continue;
      }
      const fullest = partitions.map((p) => ranges.get(partitionKey({ topic, partition: p.partition }))!).reduce<PartitionRange | null>((a, b) => (!a || b.end - b.start > a.end - a.start ? b : a), null);
      if (fullest && fullest.end > fullest.start && toRead.length < HEADER_CHECKS_PER_POLL) toRead.push({ topic, partition: fullest.partition, offset: fullest.end - 1 });
    }
    if (toRead.length > 0) {
      this.context.countCalls();
      const records = await wire.records(toRead, DATING_BYTES_PER_PARTITION).catch(() => []);
      for (const { topic } of toRead) {
        const last = records.filter((record) => record.topic === topic).pop();
        if (!last) continue;
        const original = originalTopicFromHeaders(last.headers);
        this.headerVerdicts.set(topic, original);
        if (original !== null && original !== topic) found.push({ topic, originalTopic: original, detectedBy: "header" });
      }
    }
    const present = new Set(topics.map((topic) => topic.topic));
    for (const topic of this.headerVerdicts.keys()) if (!present.has(topic)) this.headerVerdicts.delete(topic);
    return found;
  }

  /** Reads, within this poll's budget, the records not yet dated; keeps only those still waited on. */
  private async dateRecords(wire: KafkaWire, waitedOn: Array<{ topic: string; partition: number; offset: number }>): Promise<void> {
    const keyOf = (item: { topic: string; partition: number; offset: number }) => `${partitionKey(item)}\u0000${item.offset}`;
    const unique = new Map(waitedOn.map((item) => [keyOf(item), item]));
    const kept = new Map<string, number>();
    const toRead = [];
    for (const [key, item] of unique) {
      const known = this.recordTimes.get(key);
      if (known !== undefined) kept.set(key, known);
      else if (toRead.length < this.config.timeLagReadsPerPoll) toRead.push(item);
    }
    if (toRead.length > 0) {
      this.context.countCalls();
      // A failed read (a partition truncated meanwhile) falls back to interpolation.
      const records = await wire.records(toRead, DATING_BYTES_PER_PARTITION).catch(() => []);
      const firstAt = new Map<string, number>();
      for (const record of records) {
        const key = partitionKey(record);
        if (!firstAt.has(key)) firstAt.set(key, record.timestamp);
      }
      for (const item of toRead) {
        const timestamp = firstAt.get(partitionKey(item));
        if (timestamp !== undefined) kept.set(keyOf(item), timestamp);
      }
    }
    this.recordTimes = kept;
  }

  async close(): Promise<void> {
    const { admin, wire } = this;
    this.admin = null;
    this.wire = null;
    await admin?.disconnect().catch(() => undefined);
    await wire?.disconnect().catch(() => undefined);
  }
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf("\u0000");
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

/** A group still holding offsets on a topic that was deleted. */
function missingTopicObservation(group: string, topic: string, state: string, members: number): QueueObservation {
  return {
    name: `${group}@${topic}`,
    type: "consumer-group",
    depth: null,
    inflight: null,
    delayed: null,
    consumers: members,
    lagMessages: null,
    lagSeconds: null,
    status: {
      status: "warning",
      reason: `topic ${topic} no longer exists; the group still holds committed offsets for it (they expire after offsets.retention.minutes, or delete them with kafka-consumer-groups --delete-offsets)`,
    },
    facts: { group, topic, groupState: state, topicMissing: true, partitions: [] },
  };
}
