// SQS allows one PurgeQueue per queue every 60 seconds. Varal remembers its own purges so a
// second one is refused with the time left, before SQS is asked (some endpoints, such as
// ElasticMQ, do not enforce the limit themselves).

export const PURGE_COOLDOWN_MS = 60_000;

const holder = globalThis as typeof globalThis & { __varalSqsPurges?: Map<string, number> };

function purges(): Map<string, number> {
  holder.__varalSqsPurges ??= new Map();
  return holder.__varalSqsPurges;
}

/** Seconds until the queue may be purged again, or 0. */
export function purgeCooldownSeconds(queueId: string, now = Date.now()): number {
  const last = purges().get(queueId);
  if (last === undefined) return 0;
  const left = last + PURGE_COOLDOWN_MS - now;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

export function recordPurge(queueId: string, now = Date.now()): void {
  purges().set(queueId, now);
}
