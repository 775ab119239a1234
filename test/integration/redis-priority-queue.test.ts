// Varal's priority queue on a real Redis: every script's return codes, the keyspace after
// each operation, ordering, exactly-once delivery under concurrency, a consumer killed
// mid-message, and a redrive racing enqueues.
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import Redis from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { consume } from "@/server/brokers/redis/consumer";
import { PURGEABLE_SETS, priorityQueueKeys } from "@/server/brokers/redis/keys";
import { backoffMs } from "@/server/backoff";
import { PriorityQueue } from "@/server/brokers/redis/priority-queue";
import { evalScript } from "@/server/brokers/redis/scripts";
import { waitFor } from "../support/wait";

const redis = new Redis("redis://127.0.0.1:6379");
const run = crypto.randomBytes(4).toString("hex");
let counter = 0;
const created: string[] = [];

function newQueue(options?: ConstructorParameters<typeof PriorityQueue>[2]): PriorityQueue {
  const name = `test-${run}-${counter++}`;
  created.push(name);
  return new PriorityQueue(redis, name, options);
}

/** Every key of the queue that exists now, by part name. */
async function keyspace(queue: PriorityQueue): Promise<string[]> {
  const keys = await redis.keys(`vq:{${queue.name}}:*`);
  return keys.map((key) => key.slice(`vq:{${queue.name}}:`.length)).sort();
}

/** The keys purgeTake reads: each set beside its purging set. */
function takeKeys(queue: PriorityQueue): string[] {
  return PURGEABLE_SETS.flatMap((set) => [queue.keys[set], queue.keys.purging[set]]);
}

async function dataFields(queue: PriorityQueue): Promise<string[]> {
  return (await redis.hkeys(queue.keys.data)).sort();
}

afterEach(async () => {
  for (const name of created.splice(0)) {
    const keys = await redis.keys(`vq:{${name}}:*`);
    if (keys.length) await redis.del(...keys);
  }
});

afterAll(() => redis.disconnect());

describe("enqueue", () => {
  it("returns ids, refuses a repeated idempotency key within the window, and keeps equal payloads apart", async () => {
    const queue = newQueue();
    const first = await queue.enqueue("same", { idempotencyKey: "order-1" });
    const second = await queue.enqueue("same");
    expect(first).toEqual({ id: "1", duplicate: false });
    expect(second).toEqual({ id: "2", duplicate: false });
    expect(await queue.enqueue("other", { idempotencyKey: "order-1" })).toEqual({ id: "1", duplicate: true });
    expect(await redis.zcard(queue.keys.wait)).toBe(2);
    expect(await keyspace(queue)).toEqual(["data", "idem:order-1", "stats", "wait"]);
    expect(await redis.pttl(queue.keys.idempotency("order-1"))).toBeGreaterThan(23 * 3600_000);
  });

  it("refuses bad priorities, oversized payloads and keys of another type, changing nothing", async () => {
    const queue = newQueue({ maxPayloadBytes: 1024 });
    for (const priority of [Number.NaN, -1, 1024, 1.5, "high" as unknown as number]) {
      await expect(queue.enqueue("x", { priority })).rejects.toMatchObject({ code: "invalid_input" });
    }
    await expect(queue.enqueue(Buffer.alloc(1025))).rejects.toMatchObject({ code: "payload_too_large" });
    expect(await keyspace(queue)).toEqual([]);
    // The scripts check again, whatever the caller sends.
    const keys = priorityQueueKeys(queue.name);
    const raw = (priority: number | string, payload = "x") =>
      evalScript(redis, "enqueue", [keys.wait, keys.delayed, keys.data, keys.stats, keys.idempotency("-"), keys.active], [payload, priority, 0, Date.now(), 0, "", 1024]);
    expect(await raw(2000)).toBe(-3);
    expect(await raw("abc")).toBe(-3);
    expect(await raw(1, "y".repeat(2000))).toBe(-4);
    await redis.set(queue.keys.wait, "not a queue");
    expect(await raw(1)).toBe(-1);
    await expect(queue.enqueue("x")).rejects.toMatchObject({ code: "conflict" });
    expect(await keyspace(queue)).toEqual(["wait"]);
    expect(await redis.get(queue.keys.wait)).toBe("not a queue");
  });
});

describe("enqueueMany", () => {
  it("adds a batch atomically in order, and refuses a batch with one bad message, adding none", async () => {
    const queue = newQueue({ maxPayloadBytes: 10 });
    expect(await queue.enqueueMany([{ payload: "a", priority: 5 }, { payload: "b", priority: 1 }, { payload: "c", delayMs: 60_000 }])).toEqual(["1", "2", "3"]);
    expect(await redis.zrange(queue.keys.wait, 0, -1)).toEqual(["2", "1"]);
    expect(await redis.zcard(queue.keys.delayed)).toBe(1);
    await expect(queue.enqueueMany([{ payload: "ok" }, { payload: "x".repeat(11) }])).rejects.toMatchObject({ code: "payload_too_large" });
    await expect(queue.enqueueMany([{ payload: "ok" }, { payload: "y", priority: 4000 }])).rejects.toMatchObject({ code: "invalid_input" });
    const keys = priorityQueueKeys(queue.name);
    const raw = (...args: Array<string | number>) => evalScript(redis, "enqueueBatch", [keys.wait, keys.delayed, keys.data, keys.stats, keys.active], [Date.now(), 10, ...args]);
    expect(await raw("ok", 1, 0, "bad", 5000, 0)).toBe(-3);
    expect(await raw("ok", 1, 0, "x".repeat(11), 1, 0)).toBe(-4);
    expect(await raw("ok", 1)).toBe(-5);
    expect(await redis.zcard(queue.keys.wait)).toBe(2);
    await redis.set(queue.keys.active, "taken");
    expect(await raw("ok", 1, 0)).toBe(-1);
    expect(await redis.hget(queue.keys.stats, "enqueued")).toBe("3");
  });
});

describe("ordering", () => {
  it("serves lower priority numbers first and equal priorities in arrival order", async () => {
    const queue = newQueue();
    const order = [
      ["report-1", 500],
      ["email-1", 100],
      ["fraud-cancel", 0],
      ["email-2", 100],
      ["report-2", 500],
      ["email-3", 100],
    ] as const;
    for (const [payload, priority] of order) await queue.enqueue(payload, { priority });
    const taken = await queue.dequeue(10, 30_000);
    expect(taken.map((message) => message.payload.toString())).toEqual(["fraud-cancel", "email-1", "email-2", "email-3", "report-1", "report-2"]);
    expect(taken.map((message) => message.priority)).toEqual([0, 100, 100, 100, 500, 500]);
    expect(taken.every((message) => message.attempts === 1)).toBe(true);
  });

  it.each([0, 7, 1000, 1023])("keeps FIFO for thousands of equal priorities at priority %i (exact scores)", async (priority) => {
    const queue = newQueue();
    await Promise.all(Array.from({ length: 2000 }, (_, i) => queue.enqueue(`m${i}`, { priority })));
    const ids = (await queue.dequeue(1000, 30_000)).concat(await queue.dequeue(1000, 30_000)).map((message) => Number(message.id));
    expect(ids).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    const scores = await redis.hmget(queue.keys.data, "s:1", "s:2000");
    expect(scores.map(Number)).toEqual([priority * 2 ** 43 + 1, priority * 2 ** 43 + 2000]);
  });

  it("releases delayed messages when due", async () => {
    const queue = newQueue();
    await queue.enqueue("later", { delayMs: 300 });
    await queue.enqueue("now");
    expect((await queue.dequeue(10, 30_000)).map((message) => message.payload.toString())).toEqual(["now"]);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await queue.dequeue(10, 30_000)).map((message) => message.payload.toString())).toEqual(["later"]);
  });

  it("re-prioritises one message ahead of the others, and refuses what it cannot", async () => {
    const queue = newQueue();
    const report = await queue.enqueue("nightly report", { priority: 900 });
    await queue.enqueue("email", { priority: 100 });
    await queue.enqueue("earlier fraud check", { priority: 0 });
    await queue.reprioritise(report.id, 0);
    await expect(queue.reprioritise("999", 1)).rejects.toMatchObject({ code: "not_found" });
    await expect(queue.reprioritise(report.id, 5000)).rejects.toMatchObject({ code: "invalid_input" });
    // It keeps its arrival order within the new priority: ahead of later arrivals only.
    const [first, second] = await queue.dequeue(2, 30_000);
    expect([first.payload.toString(), second.payload.toString()]).toEqual(["nightly report", "earlier fraud check"]);
    await expect(queue.reprioritise(report.id, 1)).rejects.toMatchObject({ code: "conflict" });
    const keys = priorityQueueKeys(queue.name);
    expect(await evalScript(redis, "reprioritise", [keys.wait, keys.delayed, keys.active, keys.data], [report.id, 1])).toBe(-2);
    expect(await evalScript(redis, "reprioritise", [keys.wait, keys.delayed, keys.active, keys.data], ["nope", 1])).toBe(-1);
    expect(await evalScript(redis, "reprioritise", [keys.wait, keys.delayed, keys.active, keys.data], [report.id, -1])).toBe(-3);
  });

  it("re-prioritises by filter in bounded steps", async () => {
    const queue = newQueue();
    for (let i = 0; i < 25; i++) await queue.enqueue(i % 5 === 0 ? `fraud ${i}` : `email ${i}`, { priority: 100 });
    let cursor = "";
    let changed = 0;
    let steps = 0;
    do {
      const step = await queue.reprioritiseMatching({ priority: 100, contains: "fraud" }, 1, cursor, 10);
      cursor = step.cursor;
      changed += step.changed;
      steps++;
    } while (cursor !== "");
    expect(changed).toBe(5);
    expect(steps).toBe(3);
    const taken = await queue.dequeue(5, 30_000);
    expect(taken.map((message) => message.payload.toString())).toEqual(["fraud 0", "fraud 5", "fraud 10", "fraud 15", "fraud 20"]);
    await expect(queue.reprioritiseMatching({}, 2000, "")).rejects.toMatchObject({ code: "invalid_input" });
    const keys = priorityQueueKeys(queue.name);
    expect(await evalScript(redis, "reprioritiseMatching", [keys.wait, keys.data], ["", 10, 2000, "", ""])).toBe(-3);
  });
});

describe("processing", () => {
  it("acks, retries with backoff, dead-letters after maxAttempts, and leaves no keys behind", async () => {
    const queue = newQueue();
    const { id } = await queue.enqueue("job");
    let [message] = await queue.dequeue(1, 30_000);
    expect(await keyspace(queue)).toEqual(["active", "data", "stats"]);
    expect(await queue.fail(id, "boom 1", { maxAttempts: 2, retryAt: Date.now() })).toBe("retry");
    expect(await queue.fail(id, "again", { maxAttempts: 2, retryAt: Date.now() })).toBe("not-active");
    [message] = await queue.dequeue(1, 30_000);
    expect(message.attempts).toBe(2);
    expect(await queue.fail(id, "boom 2", { maxAttempts: 2, retryAt: Date.now() })).toBe("dead");
    const [dead] = await queue.peek("dead", 0, 10);
    expect(dead).toMatchObject({ id, attempts: 2, payload: Buffer.from("job"), meta: { lastError: "boom 2" } });
    expect(dead.meta.firstFailedAt).toBeLessThanOrEqual(dead.meta.lastFailedAt!);
    expect(await keyspace(queue)).toEqual(["data", "dead", "stats"]);

    expect(await queue.redrive(10)).toEqual({ moved: 1, cursor: "" });
    [message] = await queue.dequeue(1, 30_000);
    expect(message).toMatchObject({ id, attempts: 1 });
    expect(await queue.ack(id)).toBe(true);
    expect(await queue.ack(id)).toBe(false);
    expect(await queue.ackMany(["nope", id])).toEqual([false, false]);
    expect(await keyspace(queue)).toEqual(["stats"]);
    expect(await redis.hgetall(queue.keys.stats)).toMatchObject({ enqueued: "1", acked: "1", failed: "2", deadLettered: "1", redriven: "1" });
  });

  it("computes backoff exponentially with equal jitter, capped", () => {
    expect(backoffMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(4, 1000, 60_000, () => 1)).toBe(8000);
    expect(backoffMs(20, 1000, 60_000, () => 0.5)).toBe(45_000);
  });

  it("reaps expired messages back to their place, or to the dead letters after maxAttempts", async () => {
    const queue = newQueue();
    await queue.enqueue("a", { priority: 1 });
    await queue.enqueue("b", { priority: 2 });
    await queue.dequeue(2, 1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await queue.reap(5)).toEqual({ requeued: 2, deadLettered: 0 });
    const again = await queue.dequeue(2, 1);
    expect(again.map((message) => [message.payload.toString(), message.attempts])).toEqual([["a", 2], ["b", 2]]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await queue.reap(2)).toEqual({ requeued: 0, deadLettered: 2 });
    const dead = await queue.peek("dead", 0, 10);
    expect(dead.map((message) => message.meta.lastError)).toEqual([
      "visibility timeout expired (consumer died or hung) on attempt 2",
      "visibility timeout expired (consumer died or hung) on attempt 2",
    ]);
  });

  it("purges in bounded steps, and stats report bands and the oldest message", async () => {
    const queue = newQueue();
    for (let i = 0; i < 30; i++) await queue.enqueue(`m${i}`, { priority: i % 3 });
    const stats = await queue.stats();
    expect(stats).toMatchObject({ waiting: 30, delayed: 0, active: 0, dead: 0, bands: [{ priority: 0, depth: 10 }, { priority: 1, depth: 10 }, { priority: 2, depth: 10 }] });
    expect(Date.now() - stats.oldestEnqueuedAt!).toBeLessThan(10_000);
    expect((await queue.stats(2)).bands.length).toBe(2);
    const steps: number[] = [];
    expect(await queue.purge(["wait", "delayed"], async (deleted) => void steps.push(deleted), 20)).toEqual({ purged: 30, resumed: 0 });
    expect(steps).toEqual([20, 30]);
    expect(await keyspace(queue)).toEqual(["stats"]);
    expect((await queue.stats()).counters.purged).toBe(30);
  });

  it("purges what the queue held when it began, keeping what arrives meanwhile, and finishes an interrupted purge", async () => {
    const queue = newQueue();
    for (let i = 0; i < 10; i++) await queue.enqueue(`old ${i}`, { priority: 500, delayMs: i % 2 ? 60_000 : 0 });
    let arrived = 0;
    // A message that arrives mid-purge at the front of the line must survive it.
    const result = await queue.purge(["wait", "delayed"], async () => {
      if (arrived++ === 0) await queue.enqueue("new, urgent", { priority: 0 });
    }, 3);
    expect(result).toEqual({ purged: 10, resumed: 0 });
    expect((await queue.peek("wait", 0, 10)).map((message) => message.payload?.toString())).toEqual(["new, urgent"]);
    expect((await dataFields(queue)).filter((field) => field.startsWith("p:"))).toEqual(["p:11"]);

    // Interrupted after taking: the taken messages wait out of line, counted by stats and
    // deleted first by the next purge, which then takes what is waiting by then.
    for (let i = 0; i < 5; i++) await queue.enqueue(`more ${i}`);
    expect(await evalScript(redis, "purgeTake", takeKeys(queue), ["wait", "delayed"])).toBe(6);
    expect(await queue.stats()).toMatchObject({ waiting: 0, purging: 6, purgingDead: 0 });
    await queue.enqueue("after the interruption");
    expect(await evalScript(redis, "purgeTake", takeKeys(queue), ["wait"])).toBe(-5);
    expect(await queue.purge(["wait", "delayed"])).toEqual({ purged: 1, resumed: 6 });
    expect(await keyspace(queue)).toEqual(["stats"]);
  });

  it("refuses to purge keys of another type and names an unknown set, taking nothing", async () => {
    const queue = newQueue();
    await queue.enqueue("kept");
    await redis.set(queue.keys.delayed, "not a sorted set");
    await expect(queue.purge(["wait", "delayed"])).rejects.toMatchObject({ code: "conflict" });
    expect(await evalScript(redis, "purgeTake", takeKeys(queue), ["wait", "delayed"])).toBe(-1);
    await expect(evalScript(redis, "purgeTake", takeKeys(queue), ["active"])).rejects.toThrow("unknown set active");
    expect(await redis.zcard(queue.keys.wait)).toBe(1);
    await redis.del(queue.keys.delayed);
  });

  it("delivers 100,000 messages exactly once to 8 concurrent consumers", async () => {
    const queue = newQueue();
    const total = 100_000;
    const producer = new Redis("redis://127.0.0.1:6379", { enableAutoPipelining: true });
    const producing = new PriorityQueue(producer, queue.name);
    for (let start = 0; start < total; start += 5_000) {
      await Promise.all(Array.from({ length: 5_000 }, (_, i) => producing.enqueue(`m${start + i}`, { priority: (start + i) % 4 })));
    }
    producer.disconnect();
    const seen = new Map<string, number>();
    const clients = Array.from({ length: 8 }, () => new Redis("redis://127.0.0.1:6379"));
    const consumers = clients.map((client) =>
      consume(
        new PriorityQueue(client, queue.name),
        async (message) => {
          seen.set(message.id, (seen.get(message.id) ?? 0) + 1);
        },
        { concurrency: 64, idleMs: 20 },
      ),
    );
    await waitFor(() => seen.size === total, { timeoutMs: 120_000, intervalMs: 200, what: "every message to be seen" });
    await Promise.all(consumers.map((consumer) => consumer.stop()));
    clients.forEach((client) => client.disconnect());
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    expect(await queue.stats()).toMatchObject({ waiting: 0, active: 0, dead: 0, counters: { enqueued: total, acked: total } });
    expect(await dataFields(queue)).toEqual([]);
  }, 180_000);

  it("redelivers the message of a consumer killed mid-message once its visibility expires", async () => {
    const queue = newQueue();
    await queue.enqueue("precious");
    const child = spawn(process.execPath, ["--import", "tsx", "test/support/redis-taker.ts", queue.name, "1500"], { stdio: ["ignore", "pipe", "inherit"] });
    const id = await new Promise<string>((resolve) => child.stdout!.once("data", (chunk) => resolve(String(chunk).trim())));
    expect(id).toBe("1");
    child.kill("SIGKILL");
    expect(await queue.dequeue(1, 30_000)).toEqual([]);
    expect(await redis.zcard(queue.keys.active)).toBe(1);
    const handled: string[] = [];
    const consumer = consume(queue, async (message) => void handled.push(`${message.payload}#${message.attempts}`), { reapEveryMs: 200, idleMs: 50 });
    await waitFor(() => handled.length === 1, { timeoutMs: 10_000, what: "the redelivery" });
    await consumer.stop();
    expect(handled).toEqual(["precious#2"]);
    expect(await keyspace(queue)).toEqual(["stats"]);
  });

  it("finishes messages in hand when stopped, and takes no more", async () => {
    const queue = newQueue();
    for (let i = 0; i < 20; i++) await queue.enqueue(`m${i}`);
    const finished: string[] = [];
    const consumer = consume(queue, async (message) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      finished.push(message.id);
    }, { concurrency: 4 });
    await waitFor(() => consumer.inFlight === 4, { what: "four messages in hand" });
    await consumer.stop();
    expect(finished.length).toBe(4);
    expect(await redis.zcard(queue.keys.active)).toBe(0);
    expect(await redis.zcard(queue.keys.wait)).toBe(16);
  });

  it("loses nothing when a redrive races concurrent enqueues", async () => {
    const queue = newQueue();
    const dead = 5_000;
    for (let i = 0; i < dead; i++) await queue.enqueue(`dead-${i}`);
    const taken = await queue.dequeue(dead, 30_000).then(async (first) => first.concat(await queue.dequeue(dead, 30_000)));
    const all = taken.concat(await queue.dequeue(dead, 30_000), await queue.dequeue(dead, 30_000), await queue.dequeue(dead, 30_000));
    for (const message of all) await queue.fail(message.id, "poison", { maxAttempts: 1, retryAt: 0 });
    expect(await redis.zcard(queue.keys.dead)).toBe(dead);
    const producer = new Redis("redis://127.0.0.1:6379", { enableAutoPipelining: true });
    const producing = new PriorityQueue(producer, queue.name);
    const fresh = 5_000;
    const enqueues = Promise.all(Array.from({ length: fresh }, (_, i) => producing.enqueue(`fresh-${i}`)));
    let moved = 0;
    while (true) {
      const step = await queue.redrive(100);
      moved += step.moved;
      if (step.moved === 0) break;
    }
    await enqueues;
    producer.disconnect();
    expect(moved).toBe(dead);
    const waiting = await redis.zrange(queue.keys.wait, 0, -1);
    expect(waiting.length).toBe(dead + fresh);
    expect(new Set(waiting).size).toBe(dead + fresh);
    expect(await redis.zcard(queue.keys.dead)).toBe(0);
  }, 60_000);
});
