// The API's shapes as the pages use them (see shared API documentation).
export type QueueStatus = "ok" | "warning" | "stalled" | "stopped" | "unreachable";

export interface QueueSnapshot {
  id: string;
  broker: string;
  kind: "redis" | "rabbitmq" | "kafka" | "sqs";
  name: string;
  type: string;
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
  stale: boolean;
  facts: Record<string, unknown>;
}

export interface QueueDetail extends QueueSnapshot {
  sources: Array<{ id: string; depth: number | null }>;
  actions: string[];
  browsable: boolean;
  purgeCooldownSeconds?: number;
}

// Shapes the server defines once; type-only, so nothing of the server reaches the browser.
export type { BrowsedMessage } from "@/server/brokers/browse";
export type { PayloadPreview } from "@/server/brokers/preview";
export type { HotPartition, MemberView, PartitionView } from "@/server/brokers/kafka/parse";
export type { HostDetail, HostSummary } from "@/server/agents/hosts";
export type { RingReport } from "@/server/agents/report";

export interface BrokerSummary {
  name: string;
  kind: string;
  status: "ok" | "degraded" | "unreachable";
  lastPollAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastPollMs: number | null;
  queueCount: number;
  facts: Record<string, unknown>;
  warnings: string[];
}

export interface Action {
  id: string;
  kind: string;
  target: { queue?: string; host?: string; segment?: string; inode?: number };
  params: Record<string, unknown>;
  state: "pending" | "running" | "succeeded" | "failed" | "cancelled";
  progress: { done: number; total: number | null };
  result: unknown;
  error: string | null;
  requestedBy: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface DryRun {
  wouldAffect: number | null;
  /** Broker-specific: payload previews, or objects holding one under "payload". */
  sample: unknown[];
  warnings: string[];
}

export interface Me {
  name: string;
  kind: string;
  role: "viewer" | "operator" | "admin" | null;
}

export interface AuditEvent {
  id: number;
  at: string;
  actor: string;
  event: string;
  target: string | null;
  outcome: string;
  message: string | null;
  ip: string | null;
}
