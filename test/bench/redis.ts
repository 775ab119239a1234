// Redis benchmark, side by side against the same Redis in one run:
//   enqueue and dequeue+ack of Varal's scripts against raw ZADD and ZPOPMIN, same pipelining;
//   redrive of 1,000,000 dead letters;
//   purge of a 1,000,000-message queue while another client PINGs every 10 ms, against a
//   plain DEL of the same keys.
import crypto from "node:crypto";
import Redis from "ioredis";
import { priorityQueueKeys } from "../../server/brokers/redis/keys";
import { MAX_BATCH, PriorityQueue } from "../../server/brokers/redis/priority-queue";
import { defineScripts, pipelineScript } from "../../server/brokers/redis/scripts";
import { median, printTable, writeResults } from "./stats";

const URL = "redis://127.0.0.1:6379";
const OPS = Number(process.env.BENCH_REDIS_OPS ?? 100_000);
const PIPELINE = 1_000;
const BIG = Number(process.env.BENCH_REDIS_BIG ?? 1_000_000);
const ROUNDS = 3;

type Pipeline = ReturnType<Redis["pipeline"]>;

async function timed(batches: number, build: (pipeline: Pipeline, batch: number) => void, client: Redis): Promise<number> {
  const started = performance.now();
  for (let batch = 0; batch < batches; batch++) {
    const pipeline = client.pipeline();
    build(pipeline, batch);
    await pipeline.exec();
  }
  return (performance.now() - started) / 1000;
}

async function throughput(client: Redis, name: string): Promise<Record<string, number>> {
  const keys = priorityQueueKeys(name);
  const raw = `bench-raw:${name}`;
  const batches = OPS / PIPELINE;
  const payload = "x".repeat(64);
  const enqueueKeys = [keys.wait, keys.delayed, keys.data, keys.stats, keys.idempotency("-"), keys.active];
  const batchKeys = [keys.wait, keys.delayed, keys.data, keys.stats, keys.active];
  const takeKeys = [keys.wait, keys.delayed, keys.active, keys.data, keys.stats];
  const ackKeys = [keys.active, keys.data, keys.stats];
  const result: Record<string, number[]> = {
    rawEnqueue: [],
    varalEnqueue: [],
    varalEnqueueBatch: [],
    rawDequeue: [],
    varalDequeueAck: [],
    varalDequeueAckBatch: [],
  };
  // Every measure moves PIPELINE messages per round trip; "batch" packs 100 messages per script call.
  const takeAndAck = async (perCall: number): Promise<number> => {
    const started = performance.now();
    for (let batch = 0; batch < batches / 2; batch++) {
      const take = client.pipeline();
      for (let i = 0; i < PIPELINE / perCall; i++) pipelineScript(take, "dequeue", takeKeys, [Date.now(), 60_000, perCall, MAX_BATCH]);
      const ids = (await take.exec())!.flatMap(([, reply]) => (reply as string[]).filter((_, index) => index % 4 === 0).map(String));
      const ack = client.pipeline();
      for (let i = 0; i < ids.length; i += perCall) pipelineScript(ack, "ack", ackKeys, ids.slice(i, i + perCall));
      await ack.exec();
    }
    return OPS / 2 / ((performance.now() - started) / 1000);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await client.del(raw, keys.wait, keys.active, keys.data, keys.stats, keys.delayed, keys.dead);
    let seq = 0;
    result.rawEnqueue.push(OPS / (await timed(batches, (p) => { for (let i = 0; i < PIPELINE; i++) p.zadd(raw, 100 * 2 ** 43 + seq++, `${seq}:${payload}`); }, client)));
    result.varalEnqueue.push(
      OPS / (await timed(batches, (p) => { for (let i = 0; i < PIPELINE; i++) pipelineScript(p, "enqueue", enqueueKeys, [payload, 100, 0, Date.now(), 0, "", 1 << 20]); }, client)),
    );
    result.rawDequeue.push(OPS / (await timed(batches, (p) => { for (let i = 0; i < PIPELINE; i++) p.zpopmin(raw, 1); }, client)));
    result.varalDequeueAck.push(await takeAndAck(1));
    const batchArgs: Array<string | number> = [];
    for (let i = 0; i < 100; i++) batchArgs.push(payload, 100, 0);
    result.varalEnqueueBatch.push(
      OPS / (await timed(batches, (p) => { for (let i = 0; i < PIPELINE / 100; i++) pipelineScript(p, "enqueueBatch", batchKeys, [Date.now(), 1 << 20, ...batchArgs]); }, client)),
    );
    result.varalDequeueAckBatch.push(await takeAndAck(100));
  }
  await client.del(raw, keys.wait, keys.active, keys.data, keys.stats, keys.delayed);
  return Object.fromEntries(Object.entries(result).map(([key, values]) => [key, median(values)]));
}

/** Writes `count` dead letters (or waiting messages) directly, as the scripts would leave them. */
async function fill(client: Redis, name: string, set: "dead" | "wait", count: number): Promise<void> {
  const keys = priorityQueueKeys(name);
  for (let start = 0; start < count; start += 10_000) {
    const pipeline = client.pipeline();
    const members: Array<string | number> = [];
    for (let i = start; i < Math.min(count, start + 10_000); i++) {
      const id = String(i + 1);
      const score = 100 * 2 ** 43 + i + 1;
      pipeline.hset(keys.data, `p:${id}`, `payload-${id}`, `m:${id}`, '{"enqueuedAt":0,"lastError":"bench"}', `s:${id}`, score, `a:${id}`, 1);
      members.push(set === "dead" ? i : score, id);
    }
    pipeline.zadd(set === "dead" ? keys.dead : keys.wait, ...members);
    await pipeline.exec();
  }
}

async function worstPingWhile(work: () => Promise<void>): Promise<{ worstMs: number; seconds: number }> {
  const pinger = new Redis(URL);
  await pinger.ping();
  let worst = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await pinger.ping();
      worst = Math.max(worst, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  running = false;
  await loop;
  pinger.disconnect();
  return { worstMs: worst, seconds };
}

export async function runRedisBenchmark(): Promise<void> {
  const client = new Redis(URL);
  defineScripts(client);
  const name = `bench-${crypto.randomBytes(3).toString("hex")}`;
  const keys = priorityQueueKeys(name);
  try {
    console.log(`redis benchmark: ${OPS} operations per measure, pipelines of ${PIPELINE}, median of ${ROUNDS} rounds\n`);
    const rates = await throughput(client, name);
    const row = (operation: string, rawRate: number, varalRate: number) => ({
      operation,
      "raw msg/s": Math.round(rawRate),
      "varal msg/s": Math.round(varalRate),
      ratio: (varalRate / rawRate).toFixed(2),
    });
    printTable([
      row("enqueue, 1 per call", rates.rawEnqueue, rates.varalEnqueue),
      row("enqueue, 100 per call", rates.rawEnqueue, rates.varalEnqueueBatch),
      row("dequeue+ack, 1 per call", rates.rawDequeue, rates.varalDequeueAck),
      row("dequeue+ack, 100 per call", rates.rawDequeue, rates.varalDequeueAckBatch),
    ]);
    console.log(`(${PIPELINE} messages per round trip on both sides; raw is ZADD / ZPOPMIN alone, which keep no payload`);
    console.log(" apart, no in-flight set and no counters; the consumer takes and acks in batches as in the 100 rows)\n");

    await client.del(keys.wait, keys.dead, keys.data, keys.stats);
    await fill(client, name, "dead", BIG);
    const queue = new PriorityQueue(client, name);
    const redriveStarted = performance.now();
    let moved = 0;
    while (true) {
      const step = await queue.redrive(MAX_BATCH);
      if (step.moved === 0) break;
      moved += step.moved;
    }
    const redriveSeconds = (performance.now() - redriveStarted) / 1000;
    console.log(`redrive: ${moved} dead letters in ${redriveSeconds.toFixed(2)} s = ${Math.round(moved / redriveSeconds)} msg/s (target at least 100000)`);

    const idle = await worstPingWhile(() => new Promise((resolve) => setTimeout(resolve, 1000)));
    await client.del(keys.wait, keys.dead, keys.data, keys.stats);
    await fill(client, name, "wait", BIG);
    const purge = await worstPingWhile(async () => {
      await queue.purge(["wait"]);
    });
    await fill(client, name, "wait", BIG);
    const naive = await worstPingWhile(async () => {
      await client.del(keys.wait, keys.data);
    });
    printTable([
      { "while": "idle (1 s)", "worst PING ms": idle.worstMs.toFixed(2), seconds: idle.seconds.toFixed(2) },
      { "while": `Varal purge of ${BIG}`, "worst PING ms": purge.worstMs.toFixed(2), seconds: purge.seconds.toFixed(2) },
      { "while": `DEL of the same keys`, "worst PING ms": naive.worstMs.toFixed(2), seconds: naive.seconds.toFixed(2) },
    ]);
    console.log("(target: worst PING under 50 ms during a purge)");
    console.log(
      `results: ${writeResults("redis", {
        operations: OPS,
        pipeline: PIPELINE,
        rounds: ROUNDS,
        rates,
        ratios: {
          enqueue: rates.varalEnqueue / rates.rawEnqueue,
          enqueueBatch: rates.varalEnqueueBatch / rates.rawEnqueue,
          dequeueAck: rates.varalDequeueAck / rates.rawDequeue,
          dequeueAckBatch: rates.varalDequeueAckBatch / rates.rawDequeue,
        },
        redrive: { messages: moved, seconds: redriveSeconds, perSecond: moved / redriveSeconds },
        purge: { messages: BIG, worstPingMs: purge.worstMs, seconds: purge.seconds, idleWorstPingMs: idle.worstMs, naiveDelWorstPingMs: naive.worstMs },
      })}`,
    );
  } finally {
    await client.del(keys.wait, keys.dead, keys.data, keys.stats, keys.active, keys.delayed);
    client.disconnect();
  }
}
