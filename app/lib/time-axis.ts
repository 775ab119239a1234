// Ticks for a chart's time axis: round times (every 5 s, 1 min, 15 min, 4 h...) chosen so
// that a window of any length gets a handful of distinct labels.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const STEPS = [1, 2, 5, 10, 15, 30].map((s) => s * SECOND).concat([1, 2, 3, 5, 10, 15, 30].map((m) => m * MINUTE), [1, 2, 3, 4, 6, 12, 24].map((h) => h * HOUR));
const MAX_TICKS = 6;

/** Round times between from and to (ms), at most six, and the label format they need. */
export function timeTicks(from: number, to: number): { ticks: number[]; label: (ms: number) => string } {
  const span = Math.max(to - from, SECOND);
  const step = STEPS.find((candidate) => span / candidate <= MAX_TICKS) ?? STEPS[STEPS.length - 1];
  const ticks: number[] = [];
  for (let at = Math.ceil(from / step) * step; at <= to; at += step) ticks.push(at);
  const withSeconds = step < MINUTE;
  return {
    ticks,
    label: (ms) => new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", ...(withSeconds ? { second: "2-digit" } : {}) }),
  };
}
