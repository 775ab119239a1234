import { describe, expect, it } from "vitest";
import { HistoryStore, type HistorySample } from "@/server/collect/history";

const sample = (depth: number): HistorySample => ({ depth, lagMessages: depth, lagSeconds: null, rateIn: 1, rateOut: 0.5, dlqDepth: null });

describe("history", () => {
  it("serves short ranges at poll resolution and keeps nulls as nulls", () => {
    const history = new HistoryStore();
    const start = Date.UTC(2026, 0, 1, 12, 0, 0);
    for (let i = 0; i < 10; i++) history.record("r/q", start + i * 5_000, sample(i));
    const depth = history.points("r/q", "depth", "15m", start + 50_000);
    expect(depth).toHaveLength(10);
    expect(depth[0]).toEqual([start, 0]);
    expect(depth[9]).toEqual([start + 45_000, 9]);
    expect(history.points("r/q", "lagSeconds", "15m", start + 50_000)[0][1]).toBeNull();
    expect(history.points("other/q", "depth", "15m", start)).toEqual([]);
  });

  it("keeps one sample per minute for a day and hands completed minutes out once", () => {
    const history = new HistoryStore();
    const start = Date.UTC(2026, 0, 1, 0, 0, 0);
    for (let minute = 0; minute < 180; minute++) history.record("r/q", start + minute * 60_000 + 30_000, sample(minute));
    const sixHours = history.points("r/q", "depth", "6h", start + 180 * 60_000);
    expect(sixHours).toHaveLength(180);
    expect(sixHours.at(-1)).toEqual([start + 179 * 60_000, 179]);
    const first = history.takeCompletedMinutes(start + 180 * 60_000 + 1);
    expect(first).toHaveLength(180);
    expect(history.takeCompletedMinutes(start + 180 * 60_000 + 1)).toHaveLength(0);
  });

  it("restores persisted minutes without handing them out again", () => {
    const history = new HistoryStore();
    const at = new Date(Date.UTC(2026, 0, 1, 10, 0, 0));
    history.restore([{ queueId: "r/q", at, sample: sample(42) }]);
    expect(history.points("r/q", "depth", "1h", at.getTime() + 60_000)).toEqual([[at.getTime(), 42]]);
    expect(history.takeCompletedMinutes(at.getTime() + 120_000)).toHaveLength(0);
  });

  it("thins a day of minutes to a chart-sized series", () => {
    const history = new HistoryStore();
    const start = Date.UTC(2026, 0, 1, 0, 0, 0);
    for (let minute = 0; minute < 1440; minute++) history.record("r/q", start + minute * 60_000, sample(minute));
    const day = history.points("r/q", "depth", "24h", start + 1440 * 60_000 - 1);
    expect(day.length).toBeLessThanOrEqual(360);
    expect(day.at(-1)?.[1]).toBe(1439);
  });
});
