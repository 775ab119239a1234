// Reading a Kafka topic for the browser: Fetch requests outside any consumer group, so
// nothing joins a group, nothing is committed and no consumer notices. By default from
// where the queue's group will read next (its backlog, or what Varal has not redriven of a
// DLQ topic); or from an offset or a time. The cursor holds the next offset per partition.
import { VaralError } from "../../errors";
import type { BrowsedMessage, BrowsePage, BrowseRequest } from "../browse";
import { previewPayload } from "../preview";
import { createKafka } from "./adapter";
import { failureReason, originalTopicFromHeaders } from "./dlq";
import { redrivePosition, type PartitionView } from "./parse";
import { KafkaWire, partitionKey, type WireRecord } from "./wire";
import type { BrokerConfigOf } from "../../config/schema";

const BROWSE_TIMEOUT_MS = 10_000;
/** Bytes read per partition per page: enough for a page of ordinary records. */
const BYTES_PER_PARTITION = 256 * 1024;

function encodeCursor(positions: Map<number, number>): string {
  return Buffer.from(JSON.stringify(Object.fromEntries(positions))).toString("base64url");
}

function decodeCursor(cursor: string): Map<number, number> {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
    const entries = Object.entries(parsed).map(([partition, offset]) => [Number(partition), Number(offset)] as [number, number]);
    if (entries.some(([partition, offset]) => !Number.isInteger(partition) || !Number.isInteger(offset))) throw new Error("not offsets");
    return new Map(entries);
  } catch {
    throw new VaralError("invalid_input", "The cursor is not one this page gave: start again without a cursor.");
  }
}

/** A header as text when it is valid UTF-8 text, else as its size and base64. */
function headerValue(value: Buffer | Buffer[] | null): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map((entry) => headerValue(entry));
  const preview = previewPayload(value, 1024);
  return preview.encoding === "utf8" ? preview.text : `(binary, ${value.length} bytes) base64:${preview.text}`;
}

function toBrowsed(record: WireRecord): BrowsedMessage {
  const headers: Record<string, unknown> = {
    "kafka.partition": record.partition,
    "kafka.offset": record.offset,
    "kafka.key": record.key === null ? null : headerValue(record.key),
  };
  for (const [name, value] of Object.entries(record.headers)) headers[name] = headerValue(value);
  return {
    id: `${record.partition}:${record.offset}`,
    payload: record.value === null ? null : previewPayload(record.value),
    headers,
    reason: failureReason(record.headers),
    attempts: null,
    priority: null,
    firstFailureAt: null,
    lastFailureAt: null,
    enqueuedAt: new Date(record.timestamp).toISOString(),
    originalDestination: originalTopicFromHeaders(record.headers),
  };
}

/**
 * Oldest first across partitions, each partition in offset order (a producer may set
 * timestamps out of order): the page is a prefix of every partition, so the cursor skips nothing.
 */
export function mergeByTime(records: WireRecord[], limit: number): WireRecord[] {
  const queues = new Map<number, WireRecord[]>();
  for (const record of [...records].sort((a, b) => a.offset - b.offset)) {
    const queue = queues.get(record.partition) ?? [];
    queue.push(record);
    queues.set(record.partition, queue);
  }
  const page: WireRecord[] = [];
  while (page.length < limit) {
    let pick: WireRecord[] | null = null;
    for (const queue of queues.values()) {
      if (queue.length > 0 && (pick === null || queue[0].timestamp < pick[0].timestamp || (queue[0].timestamp === pick[0].timestamp && queue[0].partition < pick[0].partition))) pick = queue;
    }
    if (!pick) break;
    page.push(pick.shift()!);
  }
  return page;
}

export async function browseKafka(request: BrowseRequest): Promise<BrowsePage> {
  const { queue, limit } = request;
  const topic = String(queue.facts.topic);
  const kafka = createKafka(request.broker as BrokerConfigOf<"kafka">, BROWSE_TIMEOUT_MS);
  const wire = new KafkaWire(kafka);
  try {
    const [metadata] = await wire.metadata([topic]);
    if (!metadata || metadata.partitions.length === 0) throw new VaralError("not_found", `Topic ${topic} does not exist (any more).`);
    const ranges = await wire.ranges(metadata.partitions.map((p) => ({ topic, partition: p.partition })));
    let positions: Map<number, number>;
    if (request.cursor) {
      positions = decodeCursor(request.cursor);
    } else if (request.from?.time !== undefined) {
      const at = new Date(request.from.time).getTime();
      if (Number.isNaN(at)) throw new VaralError("invalid_input", `fromTime "${request.from.time}" is not a time: give ISO 8601, like 2026-11-29T03:00:00Z.`);
      const found = await wire.offsetsForTime(ranges, at);
      positions = new Map(ranges.map((range) => [range.partition, found.get(partitionKey(range)) ?? range.end]));
    } else if (request.from?.offset !== undefined) {
      positions = new Map(ranges.map((range) => [range.partition, request.from!.offset!]));
    } else {
      const committed = new Map(((queue.facts.partitions as PartitionView[] | undefined) ?? []).map((p) => [p.partition, p.committed]));
      positions = new Map(ranges.map((range) => [range.partition, redrivePosition(committed.get(range.partition) ?? -1, range.start)]));
    }
    // Keep each position inside its partition's log: below the start the records are gone.
    for (const range of ranges) positions.set(range.partition, Math.min(range.end, Math.max(range.start, positions.get(range.partition) ?? range.start)));
    const open = ranges.filter((range) => positions.get(range.partition)! < range.end);
    const records = open.length === 0 ? [] : await wire.records(open.map((range) => ({ topic, partition: range.partition, offset: positions.get(range.partition)! })), BYTES_PER_PARTITION);
    const page = mergeByTime(records, limit);
    const next = new Map(positions);
    for (const record of page) next.set(record.partition, Math.max(next.get(record.partition)!, record.offset + 1));
    const more = ranges.some((range) => next.get(range.partition)! < range.end);
    return { sideEffects: "none", items: page.map(toBrowsed), nextCursor: more && page.length > 0 ? encodeCursor(next) : null };
  } finally {
    await wire.disconnect().catch(() => undefined);
  }
}
