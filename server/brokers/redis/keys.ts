// The key layout of a Varal priority queue. The queue name sits in a hash tag, so that
// every key of one queue lands in the same Redis Cluster slot.

export const PRIORITY_QUEUE_PREFIX = "vq:";
export const PRIORITY_QUEUE_PARTS = ["wait", "delayed", "active", "dead", "data", "stats"] as const;
export type PriorityQueuePart = (typeof PRIORITY_QUEUE_PARTS)[number];

export interface PriorityQueueKeys {
  wait: string;
  delayed: string;
  active: string;
  dead: string;
  data: string;
  stats: string;
  idempotency(key: string): string;
}

export function priorityQueueKeys(name: string): PriorityQueueKeys {
  const base = `${PRIORITY_QUEUE_PREFIX}{${name}}`;
  return {
    wait: `${base}:wait`,
    delayed: `${base}:delayed`,
    active: `${base}:active`,
    dead: `${base}:dead`,
    data: `${base}:data`,
    stats: `${base}:stats`,
    idempotency: (key) => `${base}:idem:${key}`,
  };
}

const KEY_SHAPE = /^vq:\{(.+)\}:(wait|delayed|active|dead|data|stats|idem:.*)$/s;

/** The queue a key belongs to, or null when it is not a Varal priority queue key. */
export function parsePriorityQueueKey(key: string): { queue: string; part: string } | null {
  const match = KEY_SHAPE.exec(key);
  return match ? { queue: match[1], part: match[2] } : null;
}

/** Varal's name for a priority queue's dead-letter set. */
export const DEAD_LETTER_SUFFIX = ":dlq";
