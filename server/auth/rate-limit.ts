// Login rate limit: failures per client address and per username within a window, kept in
// the store, so that several replicas behind a load balancer limit together.
import { db } from "../db/client";

const WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 5;

function keys(ip: string, username: string): string[] {
  return [`ip:${ip}`, `user:${username.toLowerCase()}`];
}

/** Seconds until a login from this address for this user may be tried again, or 0. */
export async function loginRetryAfterSeconds(ip: string, username: string, now = Date.now()): Promise<number> {
  const rows = await db().loginFailure.findMany({ where: { key: { in: keys(ip, username) } } });
  let wait = 0;
  for (const row of rows) {
    const endsAt = row.firstAt.getTime() + WINDOW_MS;
    if (endsAt > now && row.count >= MAX_FAILURES) wait = Math.max(wait, Math.ceil((endsAt - now) / 1000));
  }
  return wait;
}

export async function recordLoginFailure(ip: string, username: string, now = Date.now()): Promise<void> {
  const cutoff = new Date(now - WINDOW_MS);
  // Windows that are over count for nothing: the table stays the size of recent failures.
  await db().loginFailure.deleteMany({ where: { firstAt: { lt: cutoff } } });
  for (const key of keys(ip, username)) {
    await db().loginFailure.upsert({
      where: { key },
      create: { key, count: 1, firstAt: new Date(now) },
      update: { count: { increment: 1 } },
    });
  }
}

export async function clearLoginFailures(ip: string, username: string): Promise<void> {
  await db().loginFailure.deleteMany({ where: { key: { in: keys(ip, username) } } });
}
