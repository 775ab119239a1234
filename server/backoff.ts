// Delay before retry n (1-based): exponential, capped, with "equal jitter" so that many
// retries started together spread out. Used by queue consumers and webhook deliveries.
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
