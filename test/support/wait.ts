// Waits for a condition in tests that watch background work (poll loops, action jobs).
export async function waitFor<T>(probe: () => T | Promise<T>, { timeoutMs = 20_000, intervalMs = 100, what = "condition" } = {}): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await probe();
    if (last) return last as NonNullable<T>;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last value: ${JSON.stringify(last)})`);
}
