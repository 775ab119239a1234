// The key layout of a Varal priority queue. The queue name sits in a hash tag, so that
// every key of one queue lands in the same Redis Cluster slot.

export const PRIORITY_QUEUE_PREFIX = "vq:";
export interface PriorityQueueKeys {
  wait: string;
  delayed: string;
  active: string;
  dead: string;
  data: string;
  stats: string;
  /** What a purge took out of each set at one instant, until it is deleted batch by batch. */
  purging: Record<PurgeableSet, string>;
  idempotency(key: string): string;
}

export const PURGEABLE_SETS = ["wait", "delayed", "dead"] as const;
export type PurgeableSet = (typeof PURGEABLE_SETS)[number];

export function priorityQueueKeys(name: string): PriorityQueueKeys {
  const base = `${PRIORITY_QUEUE_PREFIX}{${name}}`;
  return {
    wait: `${base}:wait`,
    delayed: `${base}:delayed`,
    active: `${base}:active`,
    dead: `${base}:dead`,
    data: `${base}:data`,
    stats: `${base}:stats`,
    purging: { wait: `${base}:purging:wait`, delayed: `${base}:purging:delayed`, dead: `${base}:purging:dead` },
    idempotency: (key) => `${base}:idem:${key}`,
  };
}

const KEY_SHAPE = /^vq:\{(.+)\}:(wait|delayed|active|dead|data|stats|purging:(?:wait|delayed|dead)|idem:.*)$/s;

/** The queue a key belongs to, or null when it is not a Varal priority queue key. */
export function parsePriorityQueueKey(key: string): { queue: string; part: string } | null {
  const match = KEY_SHAPE.exec(key);
  return match ? { queue: match[1], part: match[2] } : null;
}

/** Varal's name for a priority queue's dead-letter set. */
export const DEAD_LETTER_SUFFIX = ":dlq";
