// Velocity limits for actions that move messages: a loop that moves batches waits after
// each one until its average rate is back under maxPerSecond.

/** Sleeps, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Keeps a loop under maxPerSecond: call after each batch with the batch's size. */
export function velocity(maxPerSecond: number | undefined, signal: AbortSignal) {
  const started = Date.now();
  let total = 0;
  return async (moved: number) => {
    total += moved;
    if (!maxPerSecond) return;
    const due = started + (total / maxPerSecond) * 1000;
    if (due > Date.now()) await sleep(due - Date.now(), signal);
  };
}
