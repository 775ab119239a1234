// Poll loops against the real local brokers, and a broker that hangs.
import crypto from "node:crypto";
import Redis from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { getQueue, listBrokers, listQueues, queueHistory } from "@/server/collect/queries";
import { collectorState } from "@/server/collect/state";
import { parseConfig, LOCAL_DEFAULTS } from "@/server/config/load";
import { startHangingServer } from "../support/hanging-server";
import { waitFor } from "../support/wait";

const redis = new Redis("redis://127.0.0.1:6379");
const prefix = `varal-test:${crypto.randomBytes(4).toString("hex")}`;

beforeAll(async () => {
  await redis.rpush(`${prefix}:jobs`, "a", "b", "c");
  await redis.rpush(`${prefix}:jobs:dlq`, "x");
  await redis.set(`${prefix}:not-a-queue`, "v");
});

afterEach(() => stopCollectors());

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("collectors", () => {
  it("sees the four local brokers and a Redis list with its DLQ", async () => {
    await startCollectors(parseConfig(LOCAL_DEFAULTS, "defaults"), { persistHistory: false });
    await pollAllNow();
    const brokers = listBrokers();
    // Reachable, each of them; Redis is "degraded" when its settings put queued messages at
    // risk (this machine's Redis keeps nothing on disk), with the reason in its warnings.
    expect(brokers.map((broker) => [broker.name, broker.status === "unreachable" ? "unreachable" : "up", broker.lastError])).toEqual([
      ["redis", "up", null],
      ["rabbitmq", "up", null],
      ["kafka", "up", null],
      ["sqs", "up", null],
    ]);
    const redisBroker = brokers[0];
    expect(redisBroker.status).toBe(redisBroker.warnings.length > 0 ? "degraded" : "ok");
    expect(brokers.slice(1).map((broker) => broker.status)).toEqual(["ok", "ok", "ok"]);
    const jobs = getQueue(`redis/${prefix}:jobs`);
    expect(jobs).toMatchObject({ type: "list", depth: 3, lagMessages: 3, lagSeconds: null, dlq: { id: `redis/${prefix}:jobs:dlq`, depth: 1 } });
    expect(jobs.status).toBe("warning");
    expect(getQueue(`redis/${prefix}:jobs:dlq`).sources).toEqual([{ id: `redis/${prefix}:jobs`, depth: 3 }]);
    expect(() => getQueue(`redis/${prefix}:not-a-queue`)).toThrowError(/is not on broker redis/);
    expect(() => getQueue("nobroker/x")).toThrowError(/No broker named/);
    const found = listQueues({ q: prefix, sort: "depth", limit: 10 });
    expect(found.items.map((queue) => queue.name)).toEqual([`${prefix}:jobs`, `${prefix}:jobs:dlq`]);
    const history = queueHistory(jobs.id, "depth", "15m");
    expect(history.points.at(-1)?.[1]).toBe(3);
    // The window is the whole range asked for, with the samples inside it.
    expect(history.to - history.from).toBe(15 * 60_000);
    expect(history.points.every(([at]) => at >= history.from && at <= history.to)).toBe(true);
  });

  it("marks a hanging broker unreachable within its timeout while the others keep updating", async () => {
    const hanging = await startHangingServer();
    try {
      const config = parseConfig(
        {
          pollIntervalMs: 1000,
          pollTimeoutMs: 800,
          brokers: [
            { name: "redis", kind: "redis" },
            { name: "stuck-redis", kind: "redis", url: `redis://127.0.0.1:${hanging.port}` },
            { name: "stuck-rabbit", kind: "rabbitmq", managementUrl: `http://127.0.0.1:${hanging.port}` },
            { name: "stuck-sqs", kind: "sqs", endpoint: `http://127.0.0.1:${hanging.port}`, accessKeyId: "a", secretAccessKey: "b" },
          ],
        },
        "test",
      );
      const started = Date.now();
      await startCollectors(config, { persistHistory: false });
      const state = collectorState();
      await waitFor(() => ["stuck-redis", "stuck-rabbit", "stuck-sqs"].every((name) => state.brokers.get(name)!.polls > 0), {
        what: "a first poll of each stuck broker",
      });
      expect(Date.now() - started).toBeLessThan(3_000);
      for (const name of ["stuck-redis", "stuck-rabbit", "stuck-sqs"]) {
        const broker = state.brokers.get(name)!;
        expect(broker.status, name).toBe("unreachable");
        expect(broker.lastError, name).toMatch(/no answer within 800 ms/);
        expect(broker.lastPollMs!, name).toBeLessThan(1_500);
      }
      const healthy = state.brokers.get("redis")!;
      const pollsBefore = healthy.polls;
      await waitFor(() => healthy.polls >= pollsBefore + 3, { what: "three more polls of the healthy broker", timeoutMs: 6_000 });
      expect(healthy.status).not.toBe("unreachable");
    } finally {
      await stopCollectors();
      await hanging.close();
    }
  });

  it("marks a refused connection unreachable with the reason and keeps the last figures as stale", async () => {
    const config = parseConfig({ pollIntervalMs: 1000, brokers: [{ name: "redis", kind: "redis" }] }, "test");
    await startCollectors(config, { persistHistory: false });
    await pollAllNow();
    expect(getQueue(`redis/${prefix}:jobs`).stale).toBe(false);
    const state = collectorState().brokers.get("redis")!;
    // Point the running adapter at a closed port by swapping the broker for one that refuses.
    await stopCollectors();
    const refused = parseConfig({ pollIntervalMs: 1000, pollTimeoutMs: 900, brokers: [{ name: "gone", kind: "rabbitmq", managementUrl: "http://127.0.0.1:1" }] }, "test");
    await startCollectors(refused, { persistHistory: false });
    await pollAllNow();
    const gone = collectorState().brokers.get("gone")!;
    expect(gone.status).toBe("unreachable");
    expect(gone.lastError).toMatch(/RabbitMQ management API at http:\/\/127\.0\.0\.1:1 is not reachable/);
    expect(state.snapshots.length).toBeGreaterThan(0);
  });
});
