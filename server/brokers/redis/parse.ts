// Pure: Redis key scan results to queue observations.
import type { QueueObservation } from "../types";

/** Redis and Kafka DLQs are found by naming rule: the queue "orders" dead-letters into "orders:dlq". */
export const REDIS_DLQ_SUFFIX = ":dlq";

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
