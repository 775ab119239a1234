// Reads of the snapshot cache for the API and pages: never a call to a broker.
import { VaralError } from "../errors";
import { HISTORY_RANGES, type HistoryMetric, type HistoryRange } from "./history";
import { splitQueueId, troubleOrder, type BrokerSummary, type QueueSnapshot } from "./snapshot";
import { collectorState } from "./state";

export function listBrokers(): BrokerSummary[] {
  return [...collectorState().brokers.values()].map((state) => ({
    name: state.config.name,
    kind: state.config.kind,
    status: state.status,
    lastPollAt: state.lastPollAt ? new Date(state.lastPollAt).toISOString() : null,
    lastSuccessAt: state.lastSuccessAt ? new Date(state.lastSuccessAt).toISOString() : null,
    lastError: state.lastError,
    lastPollMs: state.lastPollMs,
    queueCount: state.snapshots.length,
    facts: state.health?.facts ?? {},
    warnings: state.health?.warnings ?? [],
  }));
}

export function allQueues(): QueueSnapshot[] {
  return [...collectorState().brokers.values()].flatMap((state) => state.snapshots);
}

export const QUEUE_SORTS = ["trouble", "name", "depth", "lagSeconds", "lagMessages", "rateIn", "rateOut", "dlqDepth"] as const;
export type QueueSort = (typeof QUEUE_SORTS)[number];

export interface QueueFilter {
  broker?: string;
  kind?: string;
  status?: string;
  q?: string;
  sort?: QueueSort;
  limit: number;
  cursor?: string;
}

function sortValue(queue: QueueSnapshot, sort: QueueSort): number {
  switch (sort) {
    case "dlqDepth":
      return queue.dlq?.depth ?? -1;
    case "trouble":
    case "name":
      return 0;
    default:
      return queue[sort] ?? -1;
  }
}

export interface QueuePage {
  items: QueueSnapshot[];
  nextCursor: string | null;
  total: number;
}

/** Serialised pages of the current generation: a dashboard full of viewers asks the same few. */
const pageCache = new Map<string, string>();
let pageCacheGeneration = -1;
const PAGE_CACHE_ENTRIES = 100;

/** listQueues as JSON text, computed once per snapshot generation and filter. */
export function listQueuesJson(filter: QueueFilter): string {
  const generation = collectorState().generation;
  if (generation !== pageCacheGeneration) {
    pageCache.clear();
    pageCacheGeneration = generation;
  }
  const key = JSON.stringify([filter.broker, filter.kind, filter.status, filter.q, filter.sort, filter.limit, filter.cursor]);
  let json = pageCache.get(key);
  if (json === undefined) {
    json = JSON.stringify(listQueues(filter));
    if (pageCache.size >= PAGE_CACHE_ENTRIES) pageCache.delete(pageCache.keys().next().value!);
    pageCache.set(key, json);
  }
  return json;
}

export function listQueues(filter: QueueFilter): QueuePage {
  const needle = filter.q?.toLowerCase();
  const matching = allQueues().filter(
    (queue) =>
      (!filter.broker || queue.broker === filter.broker) &&
      (!filter.kind || queue.kind === filter.kind) &&
      (!filter.status || queue.status === filter.status) &&
      (!needle || queue.id.toLowerCase().includes(needle)),
  );
  const sort = filter.sort ?? "trouble";
  matching.sort(
    sort === "trouble"
      ? troubleOrder
      : sort === "name"
        ? (a, b) => a.id.localeCompare(b.id)
        : (a, b) => sortValue(b, sort) - sortValue(a, sort) || a.id.localeCompare(b.id),
  );
  // The cursor is an offset into this ordering: snapshots change every poll, so paging
  // through a moving list is best-effort by nature.
  const offset = filter.cursor ? Number(filter.cursor) : 0;
  const items = matching.slice(offset, offset + filter.limit);
  const next = offset + filter.limit;
  return { items, nextCursor: next < matching.length ? String(next) : null, total: matching.length };
}

export interface QueueDetail extends QueueSnapshot {
  /** Queues on the same broker that dead-letter into this one. */
  sources: Array<{ id: string; depth: number | null }>;
  broker: string;
}

export function getQueue(id: string): QueueDetail {
  const parts = splitQueueId(id);
  const state = parts ? collectorState().brokers.get(parts.broker) : undefined;
  if (!parts || !state) {
    throw new VaralError("not_found", `No broker named in "${id}": queue ids are <broker>/<name>; see GET /api/brokers.`);
  }
  const snapshot = state.byName.get(parts.name);
  if (!snapshot) {
    throw new VaralError("not_found", `Queue "${parts.name}" is not on broker ${parts.broker} (as of its last poll): see GET /api/queues.`);
  }
  const sources = state.snapshots
    .filter((queue) => queue.dlq?.id === snapshot.id)
    .map((queue) => ({ id: queue.id, depth: queue.depth }));
  return { ...snapshot, sources };
}

/** A queue's samples over a range; from and to bound the window, so a chart spans all of it. */
export function queueHistory(
  id: string,
  metric: HistoryMetric,
  range: HistoryRange,
): { metric: HistoryMetric; range: HistoryRange; from: number; to: number; points: Array<[number, number | null]> } {
  const queue = getQueue(id);
  if (!(range in HISTORY_RANGES)) throw new VaralError("invalid_input", `range must be one of ${Object.keys(HISTORY_RANGES).join(", ")}`);
  const to = Date.now();
  return { metric, range, from: to - HISTORY_RANGES[range], to, points: collectorState().history.points(queue.id, metric, range, to) };
}
