// RabbitMQ benchmark, in one run on the local broker: Varal's redrive of 100,000 messages
// against RabbitMQ's own shovel-based move of the same number; and one poll over 5,000
// queues against an unfiltered GET /api/queues of the same broker.
import crypto from "node:crypto";
import amqp from "amqplib";
import { RabbitMqAdapter } from "../../server/brokers/rabbitmq/adapter";
import { redrive } from "../../server/brokers/rabbitmq/actions";
import { parseConfig } from "../../server/config/load";
import type { BrokerConfigOf } from "../../server/config/schema";
import type { QueueSnapshot } from "../../server/collect/snapshot";
import { median, printTable, writeResults } from "./stats";

const MANAGEMENT = "http://127.0.0.1:15672";
const AUTH = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
const MESSAGES = Number(process.env.BENCH_RABBITMQ_MESSAGES ?? 100_000);
const QUEUES = Number(process.env.BENCH_RABBITMQ_QUEUES ?? 5_000);

async function management(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${MANAGEMENT}${path}`, { method, headers: { authorization: AUTH, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
}

export async function runRabbitMqBenchmark(): Promise<void> {
  const run = crypto.randomBytes(3).toString("hex");
  const prefix = `bench-${run}-`;
  const connection = await amqp.connect("amqp://guest:guest@127.0.0.1:5672");
  const channel = await connection.createConfirmChannel();
  const broker = parseConfig({ brokers: [{ name: "rabbitmq", kind: "rabbitmq" }] }, "bench").brokers[0] as BrokerConfigOf<"rabbitmq">;
  const created: string[] = [];
  const fill = async (queue: string) => {
    await channel.assertQueue(queue, { durable: true });
    created.push(queue);
    const body = Buffer.alloc(64, "x");
    for (let i = 0; i < MESSAGES; i++) {
      channel.sendToQueue(queue, body, { messageId: `m${i}`, persistent: true });
      if (i % 5_000 === 4_999) await channel.waitForConfirms();
    }
    await channel.waitForConfirms();
  };
  const ready = async (queue: string) => (await channel.checkQueue(queue)).messageCount;
  try {
    console.log(`rabbitmq benchmark: redrive of ${MESSAGES} messages, poll over ${QUEUES} queues\n`);
    await fill(`${prefix}varal-dlq`);
    await channel.assertQueue(`${prefix}varal-target`, { durable: true });
    created.push(`${prefix}varal-target`);
    const snapshot = { id: `rabbitmq/${prefix}varal-dlq`, broker: "rabbitmq", kind: "rabbitmq", name: `${prefix}varal-dlq`, type: "queue", depth: MESSAGES, facts: { vhost: "/", queue: `${prefix}varal-dlq`, queueType: "classic" } } as unknown as QueueSnapshot;
    const varalStarted = performance.now();
    await redrive.run({
      actionId: "bench",
      queue: snapshot,
      broker,
      params: { destination: `${prefix}varal-target` },
      signal: new AbortController().signal,
      progress: async () => undefined,
    });
    const varalSeconds = (performance.now() - varalStarted) / 1000;
    const varalMoved = await ready(`${prefix}varal-target`);

    await fill(`${prefix}shovel-dlq`);
    await channel.assertQueue(`${prefix}shovel-target`, { durable: true });
    created.push(`${prefix}shovel-target`);
    const shovelStarted = performance.now();
    const shovel = await management("PUT", `/api/parameters/shovel/%2F/${prefix}move`, {
      value: {
        "src-protocol": "amqp091",
        "src-uri": "amqp://",
        "src-queue": `${prefix}shovel-dlq`,
        "src-delete-after": "queue-length",
        "dest-protocol": "amqp091",
        "dest-uri": "amqp://",
        "dest-queue": `${prefix}shovel-target`,
        "ack-mode": "on-confirm",
      },
    });
    if (shovel.status >= 300) throw new Error(`the shovel plugin refused the move (${shovel.status}): is rabbitmq_shovel enabled?`);
    while ((await ready(`${prefix}shovel-target`)) < MESSAGES) await new Promise((resolve) => setTimeout(resolve, 20));
    const shovelSeconds = (performance.now() - shovelStarted) / 1000;
    printTable([
      { mover: "Varal redrive (confirms, ack after confirm)", messages: varalMoved, seconds: varalSeconds.toFixed(2), "msg/s": Math.round(varalMoved / varalSeconds) },
      { mover: "RabbitMQ shovel move (on-confirm)", messages: MESSAGES, seconds: shovelSeconds.toFixed(2), "msg/s": Math.round(MESSAGES / shovelSeconds) },
    ]);
    const ratio = varalMoved / varalSeconds / (MESSAGES / shovelSeconds);
    console.log(`ratio Varal / shovel: ${ratio.toFixed(2)} (target at least 1.0)\n`);

    const names = Array.from({ length: QUEUES }, (_, i) => `${prefix}poll-${i}`);
    for (const name of names) await channel.assertQueue(name, { durable: false, autoDelete: false });
    created.push(...names);
    // The management API lists a queue once its first statistics arrive.
    for (let tries = 0; tries < 60; tries++) {
      const page = (await (await management("GET", `/api/queues?page=1&page_size=1&name=${prefix}poll-&use_regex=false`)).json()) as { filtered_count: number };
      if (page.filtered_count >= QUEUES) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const pollTimes: number[] = [];
    const rawTimes: number[] = [];
    let seen = 0;
    let calls = 0;
    for (let round = 0; round < 3; round++) {
      calls = 0;
      const adapter = new RabbitMqAdapter(broker, { countCalls: (n = 1) => void (calls += n) });
      const started = performance.now();
      seen = (await adapter.poll(new AbortController().signal)).queues.length;
      pollTimes.push(performance.now() - started);
      const rawStarted = performance.now();
      await (await management("GET", "/api/queues")).arrayBuffer();
      rawTimes.push(performance.now() - rawStarted);
    }
    printTable([
      { read: "Varal poll (columns=, pages of 500, + topology)", queues: seen, "median ms": median(pollTimes).toFixed(0), calls },
      { read: "unfiltered GET /api/queues", queues: seen, "median ms": median(rawTimes).toFixed(0), calls: 1 },
    ]);
    console.log("(target: one poll under 1 s)");
    console.log(
      `results: ${writeResults("rabbitmq", {
        redrive: { messages: MESSAGES, varal: { seconds: varalSeconds, perSecond: varalMoved / varalSeconds }, shovel: { seconds: shovelSeconds, perSecond: MESSAGES / shovelSeconds }, ratio },
        poll: { queues: seen, varalMedianMs: median(pollTimes), unfilteredMedianMs: median(rawTimes), calls },
      })}`,
    );
  } finally {
    await management("DELETE", `/api/parameters/shovel/%2F/${prefix}move`).catch(() => undefined);
    const cleanup = await connection.createChannel();
    for (const queue of created) await cleanup.deleteQueue(queue).catch(() => undefined);
    await connection.close();
  }
}
