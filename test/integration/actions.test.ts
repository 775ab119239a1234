// The actions framework on real Redis lists: dry run, idempotency, progress, cancel,
// refusals in the audit log, and a redrive whose connection is cut halfway.
import crypto from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerBuiltInActions } from "@/server/actions/handlers";
import { actionRunner } from "@/server/actions/runner";
import { cancelAction, getAction, requestAction } from "@/server/actions/service";
import { listAudit } from "@/server/audit/log";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { parseConfig } from "@/server/config/load";
import { disconnectDb } from "@/server/db/client";
import { evalScript } from "@/server/brokers/redis/scripts";
import { principal } from "../support/principals";
import { useFreshSqlite } from "../support/store";
import { actionEnded } from "../support/actions";
import { startTcpProxy } from "../support/tcp-proxy";
import { waitFor } from "../support/wait";

const redis = new Redis("redis://127.0.0.1:6379");
const prefix = `varal-test:${crypto.randomBytes(4).toString("hex")}`;
const operator = principal("operator", "operator");
const key = () => crypto.randomUUID();
/** The same Redis as a second broker whose connections pass through a proxy a test can cut. */
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;

async function fill(list: string, count: number, tag: string): Promise<void> {
  for (let start = 0; start < count; start += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, count - start) }, (_, i) => `${tag}-${start + i}`);
    await redis.lpush(list, ...batch);
  }
}

beforeAll(async () => {
  await useFreshSqlite();
  registerBuiltInActions();
  proxy = await startTcpProxy(6379);
  const brokers = [
    { name: "redis", kind: "redis", keyPattern: `${prefix}*` },
    { name: "redis-cut", kind: "redis", url: `redis://127.0.0.1:${proxy.port}`, keyPattern: `${prefix}*` },
  ];
  await startCollectors(parseConfig({ pollIntervalMs: 60_000, brokers }, "test"), {
    persistHistory: false,
  });
  await actionRunner().start();
});

beforeEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
});

afterAll(async () => {
  await proxy.cut();
  await actionRunner().stop();
  await stopCollectors();
  await disconnectDb();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("actions", () => {
  it("previews a redrive without changing anything, then runs it once per idempotency key", async () => {
    await fill(`${prefix}:orders:dlq`, 5, "m");
    await pollAllNow();
    const request = { kind: "redrive" as const, target: { queue: `redis/${prefix}:orders:dlq` }, params: {}, idempotencyKey: key() };
    const preview = await requestAction(operator, { ...request, dryRun: true }, null);
    expect(preview).toEqual({
      dryRun: {
        wouldAffect: 5,
        sample: ["m-0", "m-1", "m-2", "m-3", "m-4"].map((text) => ({ encoding: "utf8", text, bytes: 3, truncated: false })),
        warnings: [`${prefix}:orders does not exist yet: it will be created.`],
      },
    });
    expect(await redis.llen(`${prefix}:orders:dlq`)).toBe(5);

    const first = await requestAction(operator, request, null);
    const again = await requestAction(operator, request, null);
    expect("action" in first && "action" in again).toBe(true);
    if (!("action" in first) || !("action" in again)) return;
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, action: { id: first.action.id } });
    const done = await actionEnded(first.action.id);
    expect(done).toMatchObject({ state: "succeeded", progress: { done: 5, total: 5 }, result: { moved: 5, destination: `${prefix}:orders` } });
    // Oldest dead letter first in line again: consumers pop from the right.
    expect(await redis.lrange(`${prefix}:orders`, 0, -1)).toEqual(["m-4", "m-3", "m-2", "m-1", "m-0"]);
    expect(await redis.exists(`${prefix}:orders:dlq`)).toBe(0);
  });

  it("refuses a reused key for another action, a viewer, an unknown queue and a wrong purge confirmation, auditing each", async () => {
    await fill(`${prefix}:jobs`, 3, "j");
    await pollAllNow();
    // A purge can be previewed before its name is typed.
    expect(
      await requestAction(operator, { kind: "purge", target: { queue: `redis/${prefix}:jobs` }, params: {}, idempotencyKey: key(), dryRun: true }, null),
    ).toMatchObject({ dryRun: { wouldAffect: 3 } });
    const reused = key();
    await requestAction(operator, { kind: "purge", target: { queue: `redis/${prefix}:jobs` }, params: { confirm: `${prefix}:jobs` }, idempotencyKey: reused }, null);
    await expect(
      requestAction(operator, { kind: "redrive", target: { queue: `redis/${prefix}:jobs` }, params: { destination: "x" }, idempotencyKey: reused }, null),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(
      requestAction(principal("viewer", "vera"), { kind: "purge", target: { queue: `redis/${prefix}:jobs` }, params: { confirm: `${prefix}:jobs` }, idempotencyKey: key() }, "10.1.1.1"),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      requestAction(operator, { kind: "purge", target: { queue: `redis/${prefix}:missing` }, params: { confirm: "x" }, idempotencyKey: key() }, null),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      requestAction(operator, { kind: "purge", target: { queue: `redis/${prefix}:jobs` }, params: { confirm: "jobs" }, idempotencyKey: key() }, null),
    ).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining(`params.confirm must be "${prefix}:jobs"`) });
    await expect(
      requestAction(operator, { kind: "redrive", target: { queue: `redis/${prefix}:jobs` }, params: {}, idempotencyKey: key() }, null),
    ).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("give params.destination") });
    const audit = await listAudit(20);
    const refusals = audit.items.filter((item) => item.outcome === "refused").map((item) => [item.actor, item.event]);
    expect(refusals).toEqual(
      expect.arrayContaining([
        ["operator", "action.redrive"],
        ["vera", "action.purge"],
        ["operator", "action.purge"],
      ]),
    );
  });

  it("list scripts refuse keys of another type and change nothing", async () => {
    await redis.set(`${prefix}:str`, "v");
    await redis.rpush(`${prefix}:src`, "a");
    expect(await evalScript(redis, "redriveList", [`${prefix}:src`, `${prefix}:str`], [10])).toBe(-1);
    expect(await evalScript(redis, "redriveList", [`${prefix}:str`, `${prefix}:dst`], [10])).toBe(-1);
    expect(await evalScript(redis, "purgeList", [`${prefix}:str`], [])).toBe(-1);
    expect(await evalScript(redis, "purgeList", [`${prefix}:none`], [])).toBe(0);
    expect(await redis.lrange(`${prefix}:src`, 0, -1)).toEqual(["a"]);
    expect(await redis.get(`${prefix}:str`)).toBe("v");
  });

  it("purges exactly what the list held at one instant, while a producer and a consumer race it", async () => {
    const list = `${prefix}:big`;
    await fill(list, 25_000, "b");
    await pollAllNow();
    // A producer pushes and a consumer pops all through the purge, on their own connection.
    const racer = redis.duplicate();
    let racing = true;
    let pushed = 0;
    let popped = 0;
    const race = (async () => {
      while (racing) {
        await racer.lpush(list, `new-${pushed++}`);
        if (await racer.rpop(list)) popped++;
      }
    })();
    const outcome = await requestAction(operator, { kind: "purge", target: { queue: `redis/${list}` }, params: { confirm: list }, idempotencyKey: key() }, null);
    if (!("action" in outcome)) throw new Error("expected an action");
    const done = await actionEnded(outcome.action.id);
    racing = false;
    await race;
    racer.disconnect();
    const purged = (done.result as { purged: number }).purged;
    expect(done.state).toBe("succeeded");
    // Every item is accounted for once: purged, popped, or still in the list; what is left
    // was pushed after the purge's instant.
    expect(purged + popped + (await redis.llen(list))).toBe(25_000 + pushed);
    expect((await redis.lrange(list, 0, -1)).every((item) => item.startsWith("new-"))).toBe(true);
  });

  it("cancels a running redrive and every message is in one of the two lists", async () => {
    await fill(`${prefix}:slow:dlq`, 2_000, "s");
    await pollAllNow();
    const outcome = await requestAction(operator, { kind: "redrive", target: { queue: `redis/${prefix}:slow:dlq` }, params: { maxPerSecond: 500 }, idempotencyKey: key() }, null);
    if (!("action" in outcome)) throw new Error("expected an action");
    await waitFor(async () => (await getAction(outcome.action.id)).progress.done > 0, { what: "some progress" });
    await cancelAction(operator, outcome.action.id, null);
    const done = await actionEnded(outcome.action.id);
    expect(done.state).toBe("cancelled");
    const moved = await redis.llen(`${prefix}:slow`);
    const left = await redis.llen(`${prefix}:slow:dlq`);
    expect(moved).toBeGreaterThan(0);
    expect(left).toBeGreaterThan(0);
    expect(moved + left).toBe(2_000);
    await expect(cancelAction(operator, outcome.action.id, null)).rejects.toMatchObject({ code: "conflict" });
  });

  it("loses nothing when the redrive's Redis connection is cut halfway", async () => {
    const total = 60_000;
    await fill(`${prefix}:crash:dlq`, total, "c");
    await pollAllNow();
    const outcome = await requestAction(operator, { kind: "redrive", target: { queue: `redis-cut/${prefix}:crash:dlq` }, params: { maxPerSecond: 20_000 }, idempotencyKey: key() }, null);
    if (!("action" in outcome)) throw new Error("expected an action");
    await waitFor(async () => (await redis.llen(`${prefix}:crash`)) > 5_000, { what: "the redrive to be under way", intervalMs: 10 });
    await proxy.cut();
    expect(await actionEnded(outcome.action.id)).toMatchObject({ state: "failed" });
    const moved = await redis.lrange(`${prefix}:crash`, 0, -1);
    const left = await redis.lrange(`${prefix}:crash:dlq`, 0, -1);
    // Every message is in exactly one of the two lists, once.
    expect(left.length).toBeGreaterThan(0);
    expect(moved.length + left.length).toBe(total);
    expect(new Set([...moved, ...left]).size).toBe(total);
  });
});
