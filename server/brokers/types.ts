// What every broker adapter gives the collector: observations of its queues, one poll at a time.
import type { BrokerConfig, BrokerKind } from "../config/schema";

export type QueueType = "priority" | "list" | "stream-group" | "bullmq" | "queue" | "consumer-group";
export type QueueStatus = "ok" | "warning" | "stalled" | "stopped" | "unreachable";

/** One queue as a broker reports it in one poll. A figure the broker cannot give is null. */
export interface QueueObservation {
  name: string;
  type: QueueType;
  depth: number | null;
  inflight: number | null;
  delayed: number | null;
  consumers: number | null;
  /** Monotonic counters; the collector turns their deltas into rates. */
  counters?: { in: number | null; out: number | null };
  /** Rates the broker computes itself (RabbitMQ); used when there are no counters. */
  rateIn?: number | null;
  rateOut?: number | null;
  lagMessages: number | null;
  lagSeconds: number | null;
  /** The name of this queue's dead-letter queue on the same broker, if it has one. */
  dlqName?: string | null;
  /** A dead-letter queue by the broker's own marks (a Kafka DLQ topic), whether or not a source points at it. */
  isDeadLetterQueue?: boolean;
  /** A status the adapter judged itself (for example from Kafka's offset trend). */
  status?: { status: QueueStatus; reason: string };
  facts: Record<string, unknown>;
}

/** Facts about the broker itself, and what in them puts queues at risk. */
export interface BrokerHealthReport {
  facts: Record<string, unknown>;
  warnings: string[];
}

export interface PollResult {
  queues: QueueObservation[];
  health?: BrokerHealthReport;
}

export interface AdapterContext {
  /** Counts calls made to the broker, so "poll once, serve many" can be measured. */
  countCalls(n?: number): void;
}

export interface BrokerAdapter {
  readonly kind: BrokerKind;
  /** Reads every queue. Must give up when the signal aborts. */
  poll(signal: AbortSignal): Promise<PollResult>;
  close(): Promise<void>;
}

export type AdapterFactory<C extends BrokerConfig = BrokerConfig> = (config: C, context: AdapterContext) => BrokerAdapter;

/** Rejects when the signal aborts, for awaiting clients that take no signal of their own. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Runs fn over items with at most `limit` in flight, keeping the input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index], index);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
