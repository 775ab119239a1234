// The series alert rules are evaluated on, read from the snapshot cache: every queue figure
// by broker and queue, and the broker-level events.
import type { BrokerState } from "../collect/state";
import type { HistoryStore } from "../collect/history";
import type { QueueSnapshot } from "../collect/snapshot";
import { knownHosts } from "../agents/hosts";
import { seriesKey, type Series } from "./evaluate";

type QueueFigure = "depth" | "inflight" | "delayed" | "consumers" | "rateIn" | "rateOut" | "lagMessages" | "lagSeconds" | "dlqDepth";

const QUEUE_FIGURES: Record<QueueFigure, (queue: QueueSnapshot) => number | null> = {
  depth: (queue) => queue.depth,
  inflight: (queue) => queue.inflight,
  delayed: (queue) => queue.delayed,
  consumers: (queue) => queue.consumers,
  rateIn: (queue) => queue.rateIn,
  rateOut: (queue) => queue.rateOut,
  lagMessages: (queue) => queue.lagMessages,
  lagSeconds: (queue) => queue.lagSeconds,
  dlqDepth: (queue) => queue.dlq?.depth ?? null,
};

/** Every metric a rule may name: queue figures, broker events, and what host agents report. */
export const ALERT_METRICS = [...Object.keys(QUEUE_FIGURES), "dlqGrowthPerMinute", "brokerUnreachable", "ringOccupancyRatio", "agentSilent", "orphanedSegments"] as const;

export function isAlertMetric(metric: string): boolean {
  return (ALERT_METRICS as readonly string[]).includes(metric);
}

function groupOf(queue: QueueSnapshot): string | undefined {
  return typeof queue.facts.group === "string" ? queue.facts.group : undefined;
}

/** How much a queue's dead-letter depth grew over the last minute, from the chart history. */
function dlqGrowthPerMinute(history: HistoryStore, queue: QueueSnapshot, now: number): number | null {
  const points = history.points(queue.id, "dlqDepth", "15m", now).filter(([, value]) => value !== null) as Array<[number, number]>;
  if (points.length < 2) return null;
  const latest = points[points.length - 1];
  const earlier = points.filter(([at]) => at <= latest[0] - 60_000).pop() ?? points[0];
  const minutes = (latest[0] - earlier[0]) / 60_000;
  return minutes > 0 ? (latest[1] - earlier[1]) / minutes : null;
}

export function collectSeries(brokers: BrokerState[], history: HistoryStore, now = Date.now()): Map<string, Series[]> {
  const out = new Map<string, Series[]>();
  const queues = brokers.flatMap((broker) => broker.snapshots);
  for (const [metric, read] of Object.entries(QUEUE_FIGURES)) {
    out.set(
      metric,
      queues.map((queue) => ({ key: seriesKey(queue.broker, queue.name), labels: { broker: queue.broker, queue: queue.name, group: groupOf(queue) }, value: read(queue) })),
    );
  }
  out.set(
    "dlqGrowthPerMinute",
    queues.filter((queue) => queue.dlq).map((queue) => ({ key: seriesKey(queue.broker, queue.name), labels: { broker: queue.broker, queue: queue.name }, value: dlqGrowthPerMinute(history, queue, now) })),
  );
  const hosts = knownHosts(now);
  out.set(
    "ringOccupancyRatio",
    hosts.flatMap(({ summary, report }) =>
      summary.status === "silent" ? [] : report.rings.map((ring) => ({ key: seriesKey(summary.host, ring.segment), labels: { host: summary.host, segment: ring.segment }, value: ring.occupancyRatio })),
    ),
  );
  out.set("agentSilent", hosts.map(({ summary }) => ({ key: seriesKey(summary.host), labels: { host: summary.host }, value: summary.status === "silent" ? 1 : 0 })));
  out.set("orphanedSegments", hosts.map(({ summary }) => ({ key: seriesKey(summary.host), labels: { host: summary.host }, value: summary.orphanCount })));
  out.set(
    "brokerUnreachable",
    brokers.map((broker) => ({ key: seriesKey(broker.config.name), labels: { broker: broker.config.name }, value: broker.status === "unreachable" ? 1 : 0 })),
  );
  return out;
}
