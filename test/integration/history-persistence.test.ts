// Charts survive a restart: completed minutes are persisted and restored from the store.
import { afterAll, describe, expect, it } from "vitest";
import { persistHistory, restoreHistory } from "@/server/collect/collector";
import { HistoryStore } from "@/server/collect/history";
import { collectorState } from "@/server/collect/state";
import { db, disconnectDb } from "@/server/db/client";
import { useFreshSqlite } from "../support/store";

afterAll(() => disconnectDb());

describe("chart history across a restart", () => {
  it("persists each completed minute once, restores it, and prunes what is older than a day", async () => {
    await useFreshSqlite();
    const now = Date.now();
    const state = collectorState();
    state.history = new HistoryStore();
    const start = now - 30 * 60_000;
    for (let second = 0; second < 30 * 60; second += 5) {
      state.history.record("redis/orders", start + second * 1000, {
        depth: second,
        lagMessages: second,
        lagSeconds: null,
        rateIn: 2,
        rateOut: 1,
        dlqDepth: 0,
      });
    }
    await db().historyPoint.create({ data: { queueId: "redis/old", at: new Date(now - 25 * 3600_000), depth: 1 } });

    const written = await persistHistory(now);
    expect(written).toBeGreaterThanOrEqual(29);
    expect(await persistHistory(now)).toBe(0);
    expect(await db().historyPoint.count({ where: { queueId: "redis/old" } })).toBe(0);

    // A new process: empty memory, then the store's minutes come back.
    state.history = new HistoryStore();
    expect(state.history.points("redis/orders", "depth", "1h", now)).toEqual([]);
    expect(await restoreHistory(now)).toBe(written);
    const points = state.history.points("redis/orders", "depth", "1h", now);
    expect(points.length).toBe(written);
    expect(points.every(([, value]) => value !== null)).toBe(true);
    expect(state.history.points("redis/orders", "lagSeconds", "1h", now).every(([, value]) => value === null)).toBe(true);
    expect(await persistHistory(now)).toBe(0);
  });
});
