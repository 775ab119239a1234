// Operator actions on Varal priority queues, through the same service the API calls:
// redrive (all, first N, by filter), purge, re-prioritise, the dead-letter browser, and each
// move cut halfway (its connection passes through a proxy that is cut), every message counted.
import crypto from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBuiltInActions } from "@/server/actions/handlers";
import { actionsFor } from "@/server/actions/registry";
import { actionRunner } from "@/server/actions/runner";
import { requestAction } from "@/server/actions/service";
import { browseMessages } from "@/server/brokers/browse";
import { PURGEABLE_SETS } from "@/server/brokers/redis/keys";
import { MAX_BATCH, PriorityQueue, priorityOfScore } from "@/server/brokers/redis/priority-queue";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { getQueue } from "@/server/collect/queries";
import { collectorState } from "@/server/collect/state";
import { parseConfig } from "@/server/config/load";
import { disconnectDb } from "@/server/db/client";
import { principal } from "../support/principals";
import { useFreshSqlite } from "../support/store";
import { actionEnded } from "../support/actions";
import { pollUntil } from "../support/poll";
import { startTcpProxy } from "../support/tcp-proxy";
import { waitFor } from "../support/wait";

const redis = new Redis("redis://127.0.0.1:6379");
const run = crypto.randomBytes(4).toString("hex");
const operator = principal("operator", "ops");
let counter = 0;
/** The same Redis as a second broker whose connections pass through a proxy a test can cut. */
const CUT = "redis-cut";
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;

/** Cuts the proxy and keeps it cut until the action has ended, then opens it again. */
async function cutUntilEnded(id: string) {
  await proxy.cut();
  const done = await actionEnded(id);
  proxy = await startTcpProxy(6379, proxy.port);
  return done;
}

async function queueWithDeadLetters(payloads: Array<string | Buffer>, errors: string[] = []): Promise<PriorityQueue> {
  const queue = new PriorityQueue(redis, `ra-${run}-${counter++}`, { maxPayloadBytes: 20 * 1024 * 1024 });
  for (const payload of payloads) await queue.enqueue(payload);
  const taken = await queue.dequeue(payloads.length, 60_000);
  for (const [index, message] of taken.entries()) {
    await queue.fail(message.id, errors[index] ?? `error ${index}`, { maxAttempts: 1, retryAt: 0 });
  }
  return queue;
}

/** `count` messages enqueued in batches, all at `priority`, payloads "<tag> <n>". */
async function filled(count: number, tag: string, priority = 100): Promise<PriorityQueue> {
  const queue = new PriorityQueue(redis, `ra-${run}-${counter++}`);
  for (let start = 0; start < count; start += MAX_BATCH) {
    const size = Math.min(MAX_BATCH, count - start);
    await queue.enqueueMany(Array.from({ length: size }, (_, i) => ({ payload: `${tag} ${start + i}`, priority })));
  }
  return queue;
}

/** `count` dead letters, made the way consumers make them: taken, then failed for good. */
async function manyDeadLetters(count: number): Promise<PriorityQueue> {
  const queue = await filled(count, "dead");
  for (;;) {
    const taken = await queue.dequeue(MAX_BATCH, 60_000);
    if (taken.length === 0) return queue;
    await Promise.all(taken.map((message) => queue.fail(message.id, "boom", { maxAttempts: 1, retryAt: 0 })));
  }
}

/**
 * Where every message of a queue is, after checking that its sets and its data agree: no
 * message in two places, no payload without a place, no place without a payload.
 */
async function census(queue: PriorityQueue): Promise<{ payloads(place: string): string[]; scores: Map<string, number> }> {
  const places: Record<string, string[]> = {};
  for (const set of ["wait", "delayed", "active", "dead"] as const) places[set] = await redis.zrange(queue.keys[set], 0, -1);
  for (const set of PURGEABLE_SETS) places[`purging:${set}`] = await redis.zrange(queue.keys.purging[set], 0, -1);
  const placed = Object.values(places).flat();
  expect(new Set(placed).size).toBe(placed.length);
  const data = await redis.hgetall(queue.keys.data);
  const withPayload = Object.keys(data).filter((field) => field.startsWith("p:")).map((field) => field.slice(2));
  expect(withPayload.sort()).toEqual([...placed].sort());
  const waiting = await redis.zrange(queue.keys.wait, 0, -1, "WITHSCORES");
  const scores = new Map<string, number>();
  for (let i = 0; i < waiting.length; i += 2) {
    // The score in line and the score kept with the message agree (a re-prioritise writes both).
    expect(Number(data[`s:${waiting[i]}`])).toBe(Number(waiting[i + 1]));
    scores.set(waiting[i], Number(waiting[i + 1]));
  }
  return { payloads: (place) => places[place].map((id) => data[`p:${id}`]), scores };
}

async function startAction(kind: "redrive" | "purge" | "reprioritise", queue: string, params: Record<string, unknown>, broker = "redis"): Promise<string> {
  const outcome = await requestAction(operator, { kind, target: { queue: `${broker}/${queue}` }, params, idempotencyKey: crypto.randomUUID() }, null);
  if (!("action" in outcome)) throw new Error("expected an action");
  return outcome.action.id;
}

async function runAction(kind: "redrive" | "purge" | "reprioritise", queue: string, params: Record<string, unknown>) {
  return actionEnded(await startAction(kind, queue, params));
}

beforeAll(async () => {
  await useFreshSqlite();
  registerBuiltInActions();
  proxy = await startTcpProxy(6379);
  const keyPattern = `vq:{ra-${run}*`;
  const brokers = [
    { name: "redis", kind: "redis", keyPattern },
    { name: CUT, kind: "redis", url: `redis://127.0.0.1:${proxy.port}`, keyPattern },
  ];
  await startCollectors(parseConfig({ pollIntervalMs: 60_000, brokers }, "test"), {
    persistHistory: false,
  });
  await actionRunner().start();
});

afterAll(async () => {
  await proxy.cut();
  await actionRunner().stop();
  await stopCollectors();
  await disconnectDb();
  const keys = await redis.keys(`vq:{ra-${run}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("priority queue actions", () => {
  it("offers redrive and purge on dead letters, purge and re-prioritise on the queue", async () => {
    const queue = await queueWithDeadLetters(["a"]);
    await pollAllNow();
    expect(actionsFor(getQueue(`redis/${queue.name}`))).toEqual(["purge", "reprioritise"]);
    expect(actionsFor(getQueue(`redis/${queue.name}:dlq`))).toEqual(["redrive", "purge"]);
    await expect(
      requestAction(operator, { kind: "reprioritise", target: { queue: `redis/${queue.name}:dlq` }, params: { messageIds: ["1"], priority: 0 }, idempotencyKey: crypto.randomUUID() }, null),
    ).rejects.toMatchObject({ code: "invalid_input" });
    await expect(
      requestAction(operator, { kind: "redrive", target: { queue: `redis/${queue.name}` }, params: {}, idempotencyKey: crypto.randomUUID() }, null),
    ).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining(`redrive redis/${queue.name}:dlq`) });
  });

  it("redrives the first N, then those matching a filter, then the rest, counting every message", async () => {
    const queue = await queueWithDeadLetters(
      Array.from({ length: 30 }, (_, i) => `order ${i}`),
      Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? "timeout calling payments" : "card declined")),
    );
    // Dead in the order 0..29 within a few milliseconds: "the first N" are the first to die.
    expect((await queue.peek("dead", 0, 5)).map((message) => message.payload?.toString())).toEqual(["order 0", "order 1", "order 2", "order 3", "order 4"]);
    await pollAllNow();
    const preview = await requestAction(operator, { kind: "redrive", target: { queue: `redis/${queue.name}:dlq` }, params: { limit: 5 }, dryRun: true, idempotencyKey: crypto.randomUUID() }, null);
    expect(preview).toMatchObject({ dryRun: { wouldAffect: 5 } });
    expect(await redis.zcard(queue.keys.dead)).toBe(30);

    expect(await runAction("redrive", `${queue.name}:dlq`, { limit: 5 })).toMatchObject({ state: "succeeded", result: { moved: 5 } });
    expect(await runAction("redrive", `${queue.name}:dlq`, { contains: "timeout" })).toMatchObject({ state: "succeeded", result: { moved: 8 } });
    expect(await runAction("redrive", `${queue.name}:dlq`, { maxPerSecond: 200 })).toMatchObject({ state: "succeeded", result: { moved: 17 } });
    expect(await redis.zcard(queue.keys.dead)).toBe(0);
    expect(await redis.zcard(queue.keys.wait)).toBe(30);
  });

  it("re-prioritises one message by id and many by filter", async () => {
    const queue = new PriorityQueue(redis, `ra-${run}-${counter++}`);
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push((await queue.enqueue(i === 7 ? "fraud cancel" : i % 2 ? "report" : "email", { priority: i % 2 ? 900 : 100 })).id);
    await pollAllNow();
    expect(await runAction("reprioritise", queue.name, { messageIds: [ids[7]], priority: 0 })).toMatchObject({ state: "succeeded", result: { changed: 1 } });
    expect(await runAction("reprioritise", queue.name, { filter: { priority: 900 }, priority: 50 })).toMatchObject({ state: "succeeded", result: { changed: 4 } });
    const order = (await queue.dequeue(10, 60_000)).map((message) => message.payload.toString());
    expect(order).toEqual(["fraud cancel", "report", "report", "report", "report", "email", "email", "email", "email", "email"]);
  });

  it("purges a queue in steps, and its dead letters separately", async () => {
    const queue = await queueWithDeadLetters(["d1", "d2"]);
    for (let i = 0; i < 2500; i++) await queue.enqueue(`w${i}`, { delayMs: i % 2 ? 60_000 : 0 });
    await pollAllNow();
    await expect(runAction("purge", queue.name, { confirm: "wrong" })).rejects.toMatchObject({ code: "invalid_input" });
    expect(await runAction("purge", queue.name, { confirm: queue.name })).toMatchObject({ state: "succeeded", result: { purged: 2500 } });
    expect(await redis.zcard(queue.keys.dead)).toBe(2);
    expect(await runAction("purge", `${queue.name}:dlq`, { confirm: `${queue.name}:dlq` })).toMatchObject({ state: "succeeded", result: { purged: 2 } });
    expect((await redis.keys(`vq:{${queue.name}}:*`)).sort()).toEqual([queue.keys.stats]);
  });

  it("shows hostile dead letters as inert, bounded text", async () => {
    const huge = Buffer.alloc(10 * 1024 * 1024, "a");
    const binary = Buffer.from([0x00, 0xff, 0xfe, 0x01, 0x80]);
    const queue = await queueWithDeadLetters([huge, binary, "<script>alert(1)</script>", Buffer.from([0x68, 0xc3, 0x28])], ["e0", "e1", "<b>bold</b>", "e3"]);
    await pollAllNow();
    const dlq = getQueue(`redis/${queue.name}:dlq`);
    const page = await browseMessages({ queue: dlq, broker: collectorState().brokers.get("redis")!.config, limit: 10, confirmSideEffects: false });
    expect(page.sideEffects).toBe("none");
    const [big, bin, script, invalid] = page.items;
    expect(big.payload).toMatchObject({ encoding: "utf8", bytes: 10 * 1024 * 1024, truncated: true });
    expect(big.payload!.text.length).toBe(4096);
    expect(bin.payload).toMatchObject({ encoding: "base64", text: binary.toString("base64") });
    expect(script).toMatchObject({ payload: { encoding: "utf8", text: "<script>alert(1)</script>" }, reason: "<b>bold</b>", attempts: 1, originalDestination: queue.name });
    expect(invalid.payload!.encoding).toBe("base64");
    expect(page.nextCursor).toBeNull();
  });
});

describe("priority queue actions cut halfway", () => {
  it("loses nothing when a redrive's connection is cut halfway", async () => {
    const total = 30_000;
    const queue = await manyDeadLetters(total);
    const sent = Array.from({ length: total }, (_, i) => `dead ${i}`);
    await pollUntil(() => getQueue(`${CUT}/${queue.name}:dlq`).depth === total, "the dead letters");
    const id = await startAction("redrive", `${queue.name}:dlq`, { maxPerSecond: 10_000 }, CUT);
    await waitFor(async () => (await redis.zcard(queue.keys.wait)) > 3_000, { what: "the redrive under way", intervalMs: 10 });
    expect(await cutUntilEnded(id)).toMatchObject({ state: "failed" });
    const after = await census(queue);
    expect(after.payloads("dead").length).toBeGreaterThan(0);
    expect([...after.payloads("wait"), ...after.payloads("dead")].sort()).toEqual([...sent].sort());
  });

  it("keeps every message, in order within its priority, when a re-prioritise's connection is cut halfway; a second run finishes it", async () => {
    const total = 30_000;
    const queue = await filled(total, "m", 500);
    const before = await census(queue);
    await pollUntil(() => getQueue(`${CUT}/${queue.name}`).depth === total, "the queue");
    const id = await startAction("reprioritise", queue.name, { filter: { priority: 500 }, priority: 10, maxPerSecond: 10_000 }, CUT);
    await waitFor(async () => (await redis.zcount(queue.keys.wait, 10 * 2 ** 43, 11 * 2 ** 43 - 1)) > 3_000, { what: "the re-prioritise under way", intervalMs: 10 });
    expect(await cutUntilEnded(id)).toMatchObject({ state: "failed" });
    const after = await census(queue);
    // Each message at its old or its new priority, and within each, in arrival order.
    const bands = new Map<number, number[]>([[10, []], [500, []]]);
    for (const [id, score] of after.scores) bands.get(priorityOfScore(score))!.push(Number(id));
    expect(bands.get(10)!.length).toBeGreaterThan(3_000);
    expect(bands.get(500)!.length).toBeGreaterThan(0);
    expect(bands.get(10)!.length + bands.get(500)!.length).toBe(total);
    for (const ids of bands.values()) expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(after.payloads("wait").sort()).toEqual(before.payloads("wait").sort());

    expect(await runAction("reprioritise", queue.name, { filter: { priority: 500 }, priority: 10 })).toMatchObject({ state: "succeeded" });
    const finished = await census(queue);
    // All at the new priority, served in the order they arrived.
    expect([...finished.scores.values()].every((score) => priorityOfScore(score) === 10)).toBe(true);
    expect(finished.payloads("wait")).toEqual(before.payloads("wait"));
  });

  it("deletes only what was waiting when a purge began, even with its connection cut halfway; purging again finishes it", async () => {
    const total = 300_000;
    const queue = await filled(total, "old", 500);
    await pollUntil(() => getQueue(`${CUT}/${queue.name}`).depth === total, "the queue");
    const id = await startAction("purge", queue.name, { confirm: queue.name }, CUT);
    await waitFor(async () => {
      const left = await redis.zcard(queue.keys.purging.wait);
      return left > 0 && left < total - 20_000;
    }, { what: "the purge under way", intervalMs: 5 });
    // Arrivals during the purge, at the front of the line, are not the purge's to delete.
    const arrivals = await queue.enqueueMany(Array.from({ length: 50 }, (_, i) => ({ payload: `new ${i}`, priority: 0 })));
    expect(await cutUntilEnded(id)).toMatchObject({ state: "failed" });
    const after = await census(queue);
    expect(after.payloads("wait")).toEqual(arrivals.map((_, i) => `new ${i}`));
    const leftover = after.payloads("purging:wait").length;
    expect(leftover).toBeGreaterThan(0);
    expect(after.payloads("purging:wait").every((payload) => payload.startsWith("old "))).toBe(true);
    await pollAllNow();
    expect(getQueue(`redis/${queue.name}`).facts.warnings).toEqual([expect.stringContaining(`interrupted purge left ${leftover} message(s)`)]);

    const again = await runAction("purge", queue.name, { confirm: queue.name });
    expect(again).toMatchObject({ state: "succeeded", result: { purged: 50, resumedInterruptedPurge: leftover } });
    expect((await redis.keys(`vq:{${queue.name}}:*`)).sort()).toEqual([queue.keys.stats]);
  });
});
