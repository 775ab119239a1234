// Demo traffic on the local Redis: a priority queue with producers at several priorities,
// a consumer slower than its producers, failures that reach the dead letters; and a plain
// list with its ":dlq" list.
import Redis from "ioredis";
import { consume } from "../../server/brokers/redis/consumer";
import { PriorityQueue } from "../../server/brokers/redis/priority-queue";

export async function startRedisDemo(url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"): Promise<() => Promise<void>> {
  const producer = new Redis(url);
  const consumerClient = new Redis(url);
  const orders = new PriorityQueue(producer, "demo-orders");
  const kinds = [
    { priority: 0, payload: () => ({ type: "fraud-cancellation", order: Math.floor(Math.random() * 1e6) }), everyMs: 4_000 },
    { priority: 100, payload: () => ({ type: "confirmation-email", order: Math.floor(Math.random() * 1e6) }), everyMs: 250 },
    { priority: 900, payload: () => ({ type: "nightly-report", day: new Date().toISOString().slice(0, 10) }), everyMs: 1_000 },
  ];
  const timers = kinds.map((kind) =>
    setInterval(() => {
      void orders.enqueue(JSON.stringify(kind.payload()), { priority: kind.priority });
    }, kind.everyMs),
  );
  // Slower than the producers (about 5 per second against 5.25 arriving), and one in ten fails.
  const consumer = consume(
    new PriorityQueue(consumerClient, "demo-orders"),
    async (message) => {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (Math.random() < 0.1) throw new Error(`payment provider timed out for message ${message.id}`);
    },
    { concurrency: 1, maxAttempts: 3, backoff: { baseMs: 2_000, maxMs: 10_000 } },
  );
  const mail = setInterval(() => {
    void producer.lpush("demo-mail", JSON.stringify({ to: `user${Math.floor(Math.random() * 100)}@example.com` }));
    if (Math.random() < 0.2) void producer.lpush("demo-mail:dlq", JSON.stringify({ to: "bounced@example.com", error: "mailbox full" }));
  }, 1_000);
  console.log("demo: redis: demo-orders (priority queue, slow consumer, failures to demo-orders:dlq), demo-mail and demo-mail:dlq lists");
  return async () => {
    timers.forEach(clearInterval);
    clearInterval(mail);
    await consumer.stop();
    producer.disconnect();
    consumerClient.disconnect();
  };
}
