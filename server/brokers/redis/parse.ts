// Pure: what Redis answers, turned into Varal's model. Discovery works on key names first
// (Varal priority queues and BullMQ queues have known shapes), so only the remaining keys
// need a TYPE call.
import type { BrokerHealthReport, QueueObservation } from "../types";
import { DEAD_LETTER_SUFFIX, parsePriorityQueueKey } from "./keys";
import type { QueueStats } from "./priority-queue";

/** A plain list "x:dlq" is the dead-letter queue of the list "x". */
export const REDIS_DLQ_SUFFIX = ":dlq";

export interface KeyClasses {
  priorityQueues: string[];
  /** BullMQ queue bases: "<prefix>:<queue>". */
  bullQueues: string[];
  /** Keys of unknown shape: their TYPE decides (lists and streams). */
  others: string[];
}

export function classifyKeys(keys: string[]): KeyClasses {
  const priority = new Set<string>();
  const bullBases = new Set<string>();
  for (const key of keys) {
    const parsed = parsePriorityQueueKey(key);
    if (parsed) priority.add(parsed.queue);
    else if (key.endsWith(":meta")) bullBases.add(key.slice(0, -":meta".length));
  }
  const others = keys.filter((key) => {
    if (parsePriorityQueueKey(key)) return false;
    const lastColon = key.lastIndexOf(":");
    // BullMQ keeps every key of a queue under "<prefix>:<queue>:"; jobs add one more level.
    for (let end = lastColon; end > 0; end = key.lastIndexOf(":", end - 1)) {
      if (bullBases.has(key.slice(0, end))) return false;
    }
    return true;
  });
  return { priorityQueues: [...priority].sort(), bullQueues: [...bullBases].sort(), others };
}

export interface ScannedKey {
  key: string;
  type: string;
  length: number | null;
}

export function listObservations(keys: ScannedKey[]): QueueObservation[] {
  const lists = keys.filter((entry) => entry.type === "list");
  const names = new Set(lists.map((entry) => entry.key));
  return lists.map((entry) => {
    const dlqName = `${entry.key}${REDIS_DLQ_SUFFIX}`;
    return {
      name: entry.key,
      type: "list",
      depth: entry.length,
      inflight: null,
      delayed: null,
      consumers: null,
      lagMessages: entry.length,
      // A plain list holds no timestamps: the age of its oldest item is unknown.
      lagSeconds: null,
      dlqName: names.has(dlqName) ? dlqName : null,
      facts: { redisType: "list" },
    };
  });
}

/** A purge that stopped between taking messages out of line and deleting them all. */
function interruptedPurge(count: number): string[] {
  return count > 0 ? [`An interrupted purge left ${count} message(s) out of line and not yet deleted: purge again to finish it.`] : [];
}

/** A Varal priority queue gives two queues: itself, and its dead letters as "<name>:dlq". */
export function priorityObservations(name: string, stats: QueueStats, nowMs: number): QueueObservation[] {
  const counters = stats.counters;
  const dlqName = `${name}${DEAD_LETTER_SUFFIX}`;
  return [
    {
      name,
      type: "priority",
      depth: stats.waiting,
      inflight: stats.active,
      delayed: stats.delayed,
      consumers: null,
      counters: { in: counters.enqueued ?? 0, out: counters.acked ?? 0 },
      lagMessages: stats.waiting,
      lagSeconds: stats.oldestEnqueuedAt === null ? (stats.waiting === 0 ? 0 : null) : Math.max(0, (nowMs - stats.oldestEnqueuedAt) / 1000),
      dlqName,
      facts: {
        redisType: "varal-priority-queue",
        priorityBands: stats.bands,
        counters,
        warnings: interruptedPurge(stats.purging),
      },
    },
    {
      name: dlqName,
      type: "priority",
      depth: stats.dead,
      inflight: null,
      delayed: null,
      consumers: null,
      counters: { in: counters.deadLettered ?? 0, out: counters.redriven ?? 0 },
      lagMessages: stats.dead,
      lagSeconds: stats.oldestDeadAt === null ? 0 : Math.max(0, (nowMs - stats.oldestDeadAt) / 1000),
      dlqName: null,
      facts: { redisType: "varal-priority-queue-dead-letters", deadLetterOf: name, warnings: interruptedPurge(stats.purgingDead) },
    },
  ];
}

export interface StreamGroupInfo {
  name: string;
  consumers: number;
  pending: number;
  lastDeliveredId: string;
  entriesRead: number | null;
  lag: number | null;
}

/** Stream entry ids start with their creation time in ms. */
export function entryIdMs(id: string): number | null {
  const ms = Number(id.split("-")[0]);
  return Number.isFinite(ms) ? ms : null;
}

export function streamGroupObservation(
  stream: string,
  group: StreamGroupInfo,
  entriesAdded: number | null,
  firstUndeliveredId: string | null,
  nowMs: number,
): QueueObservation {
  const firstMs = firstUndeliveredId ? entryIdMs(firstUndeliveredId) : null;
  return {
    name: `${group.name}@${stream}`,
    type: "stream-group",
    depth: group.lag,
    inflight: group.pending,
    delayed: null,
    consumers: group.consumers,
    counters: { in: entriesAdded, out: group.entriesRead },
    lagMessages: group.lag,
    lagSeconds: firstMs === null ? (group.lag === 0 || firstUndeliveredId === null ? 0 : null) : Math.max(0, (nowMs - firstMs) / 1000),
    dlqName: null,
    facts: { redisType: "stream", stream, group: group.name, lastDeliveredId: group.lastDeliveredId },
  };
}

/** XINFO GROUPS answers a flat list of field/value pairs per group. */
export function parseStreamGroups(raw: unknown[]): StreamGroupInfo[] {
  return raw.map((entry) => {
    const fields = entry as Array<string | number | null>;
    const map = new Map<string, string | number | null>();
    for (let i = 0; i < fields.length; i += 2) map.set(String(fields[i]), fields[i + 1]);
    const number = (key: string) => (map.get(key) === null || map.get(key) === undefined ? null : Number(map.get(key)));
    return {
      name: String(map.get("name")),
      consumers: number("consumers") ?? 0,
      pending: number("pending") ?? 0,
      lastDeliveredId: String(map.get("last-delivered-id") ?? "0-0"),
      entriesRead: number("entries-read"),
      lag: number("lag"),
    };
  });
}

export interface BullCounts {
  wait: number;
  paused: number;
  active: number;
  delayed: number;
  prioritized: number;
  failed: number;
  completed: number;
}

export function bullObservations(base: string, counts: BullCounts): QueueObservation[] {
  const waiting = counts.wait + counts.paused + counts.prioritized;
  const failedName = `${base}:failed`;
  return [
    {
      name: base,
      type: "bullmq",
      depth: waiting,
      inflight: counts.active,
      delayed: counts.delayed,
      consumers: null,
      counters: { in: null, out: counts.completed + counts.failed },
      lagMessages: waiting,
      lagSeconds: null,
      dlqName: failedName,
      facts: { redisType: "bullmq", ...counts },
    },
    {
      name: failedName,
      type: "bullmq",
      depth: counts.failed,
      inflight: null,
      delayed: null,
      consumers: null,
      lagMessages: counts.failed,
      lagSeconds: null,
      dlqName: null,
      facts: { redisType: "bullmq-failed", failedOf: base },
    },
  ];
}

/** INFO sections as a map of field to value. */
export function parseInfo(text: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0 && !line.startsWith("#")) fields.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return fields;
}

/** What in Redis's own settings puts queued messages at risk. */
export function redisHealth(info: Map<string, string>, saveConfig: string | null): BrokerHealthReport {
  const usedBytes = Number(info.get("used_memory") ?? NaN);
  const maxBytes = Number(info.get("maxmemory") ?? 0);
  const policy = info.get("maxmemory_policy") ?? "unknown";
  const aof = info.get("aof_enabled") === "1";
  const rdb = saveConfig === null ? null : saveConfig.trim() !== "";
  const warnings: string[] = [];
  if (policy !== "noeviction" && policy !== "unknown") {
    warnings.push(`maxmemory-policy is ${policy}: under memory pressure Redis evicts keys, and an evicted queue key is a lost job. Set maxmemory-policy noeviction.`);
  }
  if (!aof && rdb === false) {
    warnings.push("Persistence is off (no AOF, no RDB save points): a Redis restart loses every queued message. Enable appendonly yes.");
  }
  if (maxBytes > 0 && usedBytes / maxBytes > 0.9) {
    warnings.push(`Memory is ${Math.round((usedBytes / maxBytes) * 100)}% of maxmemory: enqueues will soon be refused.`);
  }
  return {
    facts: {
      version: info.get("redis_version") ?? null,
      usedMemoryBytes: Number.isFinite(usedBytes) ? usedBytes : null,
      maxMemoryBytes: maxBytes || null,
      maxMemoryPolicy: policy,
      appendOnly: aof,
      rdbSavePoints: rdb === null ? null : saveConfig,
    },
    warnings,
  };
}
