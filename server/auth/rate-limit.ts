// Login rate limit: failures per client address and per username within a window.
// In memory, per process: with several replicas each one limits on its own.

const WINDOW_MS = 15 * 60_000;
const MAX_FAILURES = 5;

interface Failures {
  count: number;
  firstAt: number;
}

const holder = globalThis as typeof globalThis & { __varalLoginFailures?: Map<string, Failures> };

function failures(): Map<string, Failures> {
  holder.__varalLoginFailures ??= new Map();
  return holder.__varalLoginFailures;
}

function keys(ip: string, username: string): string[] {
  return [`ip:${ip}`, `user:${username.toLowerCase()}`];
}

/** Seconds until a login from this address for this user may be tried again, or 0. */
export function loginRetryAfterSeconds(ip: string, username: string, now = Date.now()): number {
  let wait = 0;
  for (const key of keys(ip, username)) {
    const entry = failures().get(key);
    if (!entry) continue;
    if (now - entry.firstAt > WINDOW_MS) {
      failures().delete(key);
    } else if (entry.count >= MAX_FAILURES) {
      wait = Math.max(wait, Math.ceil((entry.firstAt + WINDOW_MS - now) / 1000));
    }
  }
  return wait;
}

export function recordLoginFailure(ip: string, username: string, now = Date.now()): void {
  for (const key of keys(ip, username)) {
    const entry = failures().get(key);
    if (!entry || now - entry.firstAt > WINDOW_MS) failures().set(key, { count: 1, firstAt: now });
    else entry.count += 1;
  }
}

export function clearLoginFailures(ip: string, username: string): void {
  for (const key of keys(ip, username)) failures().delete(key);
}
