// Actions: operator requests that move or delete messages, run as persisted jobs.
import type { z } from "zod";
import type { BrokerConfig, BrokerKind } from "../config/schema";
import type { QueueSnapshot } from "../collect/snapshot";

export const ACTION_KINDS = ["redrive", "purge", "reprioritise", "offset-reset", "segment-cleanup"] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];
export const ACTION_STATES = ["pending", "running", "succeeded", "failed", "cancelled"] as const;
export type ActionState = (typeof ACTION_STATES)[number];

export interface ActionRecord {
  id: string;
  kind: ActionKind;
  target: { queue: string } | Record<string, unknown>;
  params: Record<string, unknown>;
  state: ActionState;
  progress: { done: number; total: number | null };
  result: unknown;
  error: string | null;
  requestedBy: string;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface DryRunResult {
  wouldAffect: number | null;
  sample: unknown[];
  warnings: string[];
}

export interface QueueActionTarget {
  queue: QueueSnapshot;
  broker: BrokerConfig;
}

export interface RunContext<P> extends QueueActionTarget {
  actionId: string;
  params: P;
  /** Aborts when the operator cancels or the process stops. */
  signal: AbortSignal;
  /** Reports progress; resolves once stored. Throws if the action was cancelled meanwhile. */
  progress(done: number, total?: number | null): Promise<void>;
}

/** How one broker carries out one kind of action on a queue. */
export interface QueueActionHandler<P = unknown> {
  kind: ActionKind;
  brokerKind: BrokerKind;
  params: z.ZodType<P>;
  /** Whether the action makes sense for this queue at all (offered in the UI only then). */
  appliesTo?(queue: QueueSnapshot): boolean;
  /** Checks that need the target (a purge's typed confirmation); throws VaralError.
   * A dry run is checked too, but may leave out what only confirms (mode "dry-run"). */
  check?(target: QueueActionTarget, params: P, mode: "dry-run" | "run"): void;
  dryRun(target: QueueActionTarget, params: P): Promise<DryRunResult>;
  run(context: RunContext<P>): Promise<unknown>;
}
