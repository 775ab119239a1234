// The Redis adapter on a real Redis: every queue shape it discovers, and Redis's settings.
import crypto from "node:crypto";
import { Queue } from "bullmq";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisAdapter } from "@/server/brokers/redis/adapter";
import { PriorityQueue } from "@/server/brokers/redis/priority-queue";
import type { QueueObservation } from "@/server/brokers/types";
import { parseConfig } from "@/server/config/load";
import type { BrokerConfigOf } from "@/server/config/schema";

const run = crypto.randomBytes(4).toString("hex");
const prefix = `adapter-${run}`;
const redis = new Redis("redis://127.0.0.1:6379");
let bull: Queue;

function adapterFor(pattern: string): { adapter: RedisAdapter; calls: () => number } {
  let calls = 0;
  const config = parseConfig({ brokers: [{ name: "r", kind: "redis", keyPattern: pattern }] }, "test").brokers[0] as BrokerConfigOf<"redis">;
  return { adapter: new RedisAdapter(config, { countCalls: (n = 1) => void (calls += n) }, 5_000), calls: () => calls };
}

beforeAll(async () => {
  const pq = new PriorityQueue(redis, `${prefix}-orders`);
  await pq.enqueue("urgent", { priority: 0 });
  await pq.enqueue("normal-1", { priority: 100 });
  await pq.enqueue("normal-2", { priority: 100 });
  const [taken] = await pq.dequeue(1, 60_000);
  await pq.fail(taken.id, "card declined", { maxAttempts: 1, retryAt: 0 });

  await redis.rpush(`${prefix}-mail`, "a", "b");
  await redis.rpush(`${prefix}-mail:dlq`, "x");
  await redis.set(`${prefix}-string`, "not a queue");

  const stream = `${prefix}-events`;
  const now = Date.now();
  await redis.xadd(stream, `${now - 120_000}-0`, "n", "1");
  await redis.xadd(stream, `${now - 60_000}-0`, "n", "2");
  await redis.xadd(stream, `${now - 1_000}-0`, "n", "3");
  await redis.xgroup("CREATE", stream, "billing", "0");
  await redis.xgroup("CREATE", stream, "caught-up", "$");
  await redis.xreadgroup("GROUP", "billing", "worker-1", "COUNT", 1, "STREAMS", stream, ">");

  bull = new Queue(`${prefix}-bull`, { connection: { host: "127.0.0.1", port: 6379 }, prefix: `${prefix}-bq` });
  await bull.add("send", { to: "a" });
  await bull.add("send", { to: "b" }, { priority: 3 });
  await bull.add("later", { to: "c" }, { delay: 60_000 });
});

afterAll(async () => {
  await bull.obliterate({ force: true });
  await bull.close();
  const keys = [...(await redis.keys(`${prefix}*`)), ...(await redis.keys(`vq:{${prefix}*`))];
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

function byName(queues: QueueObservation[]): Map<string, QueueObservation> {
  return new Map(queues.map((queue) => [queue.name, queue]));
}

describe("Redis adapter", () => {
  it("finds priority queues, lists, stream groups and BullMQ queues, and nothing else", async () => {
    const { adapter } = adapterFor("*");
    const { queues } = await adapter.poll(new AbortController().signal);
    await adapter.close();
    const found = byName(queues);

    expect(found.get(`${prefix}-orders`)).toMatchObject({
      type: "priority",
      depth: 2,
      inflight: 0,
      delayed: 0,
      dlqName: `${prefix}-orders:dlq`,
      facts: { priorityBands: [{ priority: 100, depth: 2 }] },
    });
    expect(found.get(`${prefix}-orders`)!.lagSeconds).toBeLessThan(30);
    expect(found.get(`${prefix}-orders:dlq`)).toMatchObject({ type: "priority", depth: 1, facts: { deadLetterOf: `${prefix}-orders` } });

    expect(found.get(`${prefix}-mail`)).toMatchObject({ type: "list", depth: 2, dlqName: `${prefix}-mail:dlq` });
    expect(found.get(`${prefix}-string`)).toBeUndefined();

    const billing = found.get(`billing@${prefix}-events`)!;
    expect(billing).toMatchObject({ type: "stream-group", depth: 2, inflight: 1, consumers: 1, lagMessages: 2 });
    // The first undelivered entry is a minute old: its id is its timestamp.
    expect(billing.lagSeconds).toBeGreaterThan(59);
    expect(billing.lagSeconds).toBeLessThan(90);
    expect(found.get(`caught-up@${prefix}-events`)).toMatchObject({ depth: 0, lagSeconds: 0 });

    const bullName = `${prefix}-bq:${prefix}-bull`;
    expect(found.get(bullName)).toMatchObject({ type: "bullmq", depth: 2, delayed: 1, inflight: 0, dlqName: `${bullName}:failed` });
    expect(found.get(`${bullName}:failed`)).toMatchObject({ depth: 0 });
    // BullMQ's own keys (job hashes, events, wait list) are not listed as queues of their own.
    expect(queues.filter((queue) => queue.name.startsWith(`${bullName}:`)).map((queue) => queue.name)).toEqual([`${bullName}:failed`]);
  });

  it("flags the settings that lose queued messages", async () => {
    const { adapter } = adapterFor(`${prefix}*`);
    const { health } = await adapter.poll(new AbortController().signal);
    await adapter.close();
    const policy = await redis.config("GET", "maxmemory-policy");
    const save = await redis.config("GET", "save");
    expect(health!.facts).toMatchObject({ maxMemoryPolicy: (policy as string[])[1] });
    // This machine's Redis runs without persistence: the adapter must say so.
    const appendonly = (await redis.config("GET", "appendonly")) as string[];
    if ((save as string[])[1] === "" && appendonly[1] === "no") {
      expect(health!.warnings.join("\n")).toContain("Persistence is off");
    }
  });

  it("reads many queues in a constant number of round trips", async () => {
    const { adapter, calls } = adapterFor(`${prefix}*`);
    await adapter.poll(new AbortController().signal);
    await adapter.close();
    // SCAN, TYPE per unknown key, INFO x3 + CONFIG, and one command per figure: counted, bounded.
    expect(calls()).toBeGreaterThan(5);
    expect(calls()).toBeLessThan(60);
  });
});
