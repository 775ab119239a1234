// Varal's model of a queue at one moment, as the API and the pages see it.
import type { BrokerKind } from "../config/schema";
import type { QueueStatus, QueueType } from "../brokers/types";

export interface QueueSnapshot {
  /** `<broker>/<name>` */
  id: string;
  broker: string;
  kind: BrokerKind;
  name: string;
  type: QueueType;
  depth: number | null;
  inflight: number | null;
  delayed: number | null;
  consumers: number | null;
  rateIn: number | null;
  rateOut: number | null;
  lagMessages: number | null;
  lagSeconds: number | null;
  dlq: { id: string; depth: number | null } | null;
  status: QueueStatus;
  statusReason: string | null;
  observedAt: string;
  /** True when the broker could not be polled and these are the last good figures. */
  stale: boolean;
  facts: Record<string, unknown>;
}

export type BrokerHealth = "ok" | "degraded" | "unreachable";

export interface BrokerSummary {
  name: string;
  kind: BrokerKind;
  status: BrokerHealth;
  lastPollAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastPollMs: number | null;
  queueCount: number;
  /** The broker's own facts (memory, persistence, ...) and what in them puts queues at risk. */
  facts: Record<string, unknown>;
  warnings: string[];
}

export function queueId(broker: string, name: string): string {
  return `${broker}/${name}`;
}

/** The broker part of a queue id is everything before the first "/" (broker names hold none). */
export function splitQueueId(id: string): { broker: string; name: string } | null {
  const slash = id.indexOf("/");
  if (slash <= 0 || slash === id.length - 1) return null;
  return { broker: id.slice(0, slash), name: id.slice(slash + 1) };
}

const STATUS_RANK: Record<QueueStatus, number> = { unreachable: 4, stalled: 3, stopped: 3, warning: 2, ok: 0 };

/** Orders queues by trouble: the worst status first, then the longest lag, then the deepest. */
export function troubleOrder(a: QueueSnapshot, b: QueueSnapshot): number {
  return (
    STATUS_RANK[b.status] - STATUS_RANK[a.status] ||
    (b.lagSeconds ?? -1) - (a.lagSeconds ?? -1) ||
    (b.depth ?? -1) - (a.depth ?? -1) ||
    a.id.localeCompare(b.id)
  );
}
