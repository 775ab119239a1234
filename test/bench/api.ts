// API benchmark: 1,000 queues in the snapshot, 1, 10 and 50 concurrent clients reading
// /api/queues and the overview for a fixed time each. Prints latency percentiles,
// requests/s, and calls made to the broker per minute in each phase: the last must not
// grow with the number of clients (poll once, serve many).
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import { startServer } from "../support/server";
import { percentile, printTable, writeResults } from "./stats";

const QUEUES = 1_000;
const CLIENT_COUNTS = [1, 10, 50];
const PHASE_SECONDS = Number(process.env.BENCH_PHASE_SECONDS ?? 20);

async function brokerCalls(url: string, token: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const match = /^varal_broker_calls_total\{broker="redis"\} (\d+)/m.exec(text);
  return match ? Number(match[1]) : Number.NaN;
}

async function client(url: string, token: string, until: number, latencies: number[]): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  // What a dashboard does: the queue list, and the overview's two reads.
  const routes = ["/api/queues?limit=100", "/api/brokers", "/api/queues?sort=trouble&limit=15"];
  let next = 0;
  while (Date.now() < until) {
    const route = routes[next++ % routes.length];
    const started = performance.now();
    const response = await fetch(`${url}${route}`, { headers });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${route} answered ${response.status}`);
    latencies.push(performance.now() - started);
  }
}

export async function runApiBenchmark(): Promise<void> {
  const redis = new Redis("redis://127.0.0.1:6379");
  const prefix = `varal-bench:${crypto.randomBytes(3).toString("hex")}`;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "varal-bench-"));
  const token = crypto.randomBytes(24).toString("hex");
  const pipeline = redis.pipeline();
  for (let i = 0; i < QUEUES; i++) pipeline.rpush(`${prefix}:queue-${i}`, ...Array.from({ length: (i % 50) + 1 }, (_, n) => `m${n}`));
  await pipeline.exec();
  const server = await startServer({
    scratch,
    env: { VARAL_ADMIN_TOKEN: token },
    config: `pollIntervalMs: 5000\nbrokers:\n  - { name: redis, kind: redis, keyPattern: "${prefix}:*" }\n`,
  });
  try {
    // Wait for the first poll so that every phase reads a full snapshot.
    for (let tries = 0; tries < 100; tries++) {
      const page = await (await fetch(`${server.url}/api/queues?limit=1`, { headers: { authorization: `Bearer ${token}` } })).json();
      if (page.total === QUEUES) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.log(`api benchmark: ${QUEUES} Redis lists, ${PHASE_SECONDS} s per phase, server polling every 5 s\n`);
    const rows = [];
    for (const clients of CLIENT_COUNTS) {
      const latencies: number[] = [];
      const callsBefore = await brokerCalls(server.url, token);
      const started = Date.now();
      const until = started + PHASE_SECONDS * 1000;
      await Promise.all(Array.from({ length: clients }, () => client(server.url, token, until, latencies)));
      const seconds = (Date.now() - started) / 1000;
      const callsPerMinute = ((await brokerCalls(server.url, token)) - callsBefore) / (seconds / 60);
      latencies.sort((a, b) => a - b);
      rows.push({
        clients,
        requests: latencies.length,
        "req/s": Math.round(latencies.length / seconds),
        "p50 ms": Number(percentile(latencies, 50).toFixed(2)),
        "p95 ms": Number(percentile(latencies, 95).toFixed(2)),
        "broker calls/min": Math.round(callsPerMinute),
      });
    }
    printTable(rows);
    const ratio = rows.at(-1)!["broker calls/min"] / rows[0]["broker calls/min"];
    console.log(`\nbroker calls per minute, 50 clients / 1 client: ${ratio.toFixed(3)} (target at most 1.1)`);
    console.log(`p95 at 50 clients: ${rows.at(-1)!["p95 ms"]} ms (target under 50 ms)`);
    console.log(`results: ${writeResults("api", { queues: QUEUES, phaseSeconds: PHASE_SECONDS, phases: rows, brokerCallRatio50to1: ratio })}`);
  } finally {
    await server.stop();
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    redis.disconnect();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
