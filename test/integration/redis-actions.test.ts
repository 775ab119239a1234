// Operator actions on Varal priority queues, through the same service the API calls:
// redrive (all, first N, by filter), purge, re-prioritise, and the dead-letter browser.
import crypto from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBuiltInActions } from "@/server/actions/handlers";
import { actionsFor } from "@/server/actions/registry";
import { actionRunner } from "@/server/actions/runner";
import { requestAction } from "@/server/actions/service";
import { browseMessages } from "@/server/brokers/browse";
import { PriorityQueue } from "@/server/brokers/redis/priority-queue";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { getQueue } from "@/server/collect/queries";
import { collectorState } from "@/server/collect/state";
import { parseConfig } from "@/server/config/load";
import { disconnectDb } from "@/server/db/client";
import { principal } from "../support/principals";
import { useFreshSqlite } from "../support/store";
import { actionEnded } from "../support/actions";

const redis = new Redis("redis://127.0.0.1:6379");
const run = crypto.randomBytes(4).toString("hex");
const operator = principal("operator", "ops");
let counter = 0;

async function queueWithDeadLetters(payloads: Array<string | Buffer>, errors: string[] = []): Promise<PriorityQueue> {
  const queue = new PriorityQueue(redis, `ra-${run}-${counter++}`, { maxPayloadBytes: 20 * 1024 * 1024 });
  for (const payload of payloads) await queue.enqueue(payload);
  const taken = await queue.dequeue(payloads.length, 60_000);
  for (const [index, message] of taken.entries()) {
    await queue.fail(message.id, errors[index] ?? `error ${index}`, { maxAttempts: 1, retryAt: 0 });
  }
  return queue;
}

async function runAction(kind: "redrive" | "purge" | "reprioritise", queue: string, params: Record<string, unknown>) {
  const outcome = await requestAction(operator, { kind, target: { queue: `redis/${queue}` }, params, idempotencyKey: crypto.randomUUID() }, null);
  if (!("action" in outcome)) throw new Error("expected an action");
  return actionEnded(outcome.action.id);
}

beforeAll(async () => {
  await useFreshSqlite();
  registerBuiltInActions();
  await startCollectors(parseConfig({ pollIntervalMs: 60_000, brokers: [{ name: "redis", kind: "redis", keyPattern: `vq:{ra-${run}*` }] }, "test"), {
    persistHistory: false,
  });
  await actionRunner().start();
});

afterAll(async () => {
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
