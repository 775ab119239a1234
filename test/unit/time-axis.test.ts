import { describe, expect, it } from "vitest";
import { timeTicks } from "@/app/lib/time-axis";

const MINUTE = 60_000;

describe("time axis ticks", () => {
  it("gives every window a few round, distinct, in-range ticks", () => {
    const to = Date.UTC(2026, 10, 29, 15, 17, 23, 456);
    for (const span of [1_500, 20_000, 15 * MINUTE, 60 * MINUTE, 6 * 60 * MINUTE, 24 * 60 * MINUTE]) {
      const from = to - span;
      const { ticks, label } = timeTicks(from, to);
      expect(ticks.length, `span ${span}`).toBeGreaterThanOrEqual(1);
      expect(ticks.length, `span ${span}`).toBeLessThanOrEqual(6);
      expect(ticks.every((at) => at >= from && at <= to)).toBe(true);
      expect(new Set(ticks.map(label)).size, `labels for span ${span}`).toBe(ticks.length);
      const step = ticks.length > 1 ? ticks[1] - ticks[0] : null;
      if (step) expect(ticks.every((at) => at % step === 0)).toBe(true);
    }
  });

  it("steps 3 minutes over 15 minutes and 4 hours over a day, seconds only below a minute", () => {
    const to = Date.UTC(2026, 10, 29, 15, 17, 23);
    const quarter = timeTicks(to - 15 * MINUTE, to);
    expect(quarter.ticks[1] - quarter.ticks[0]).toBe(3 * MINUTE);
    expect(quarter.label(quarter.ticks[0])).not.toMatch(/\d+:\d+:\d+/);
    const day = timeTicks(to - 24 * 60 * MINUTE, to);
    expect(day.ticks[1] - day.ticks[0]).toBe(4 * 60 * MINUTE);
    const seconds = timeTicks(to - 20_000, to);
    expect(seconds.label(seconds.ticks[0])).toMatch(/\d+:\d+:\d+/);
  });
});
