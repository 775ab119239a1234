// A consumer that takes one message and then hangs: the test SIGKILLs it mid-message.
import Redis from "ioredis";
import { PriorityQueue } from "@/server/brokers/redis/priority-queue";

const [queueName, visibilityMs] = process.argv.slice(2);
const client = new Redis("redis://127.0.0.1:6379");
const queue = new PriorityQueue(client, queueName);
const [message] = await queue.dequeue(1, Number(visibilityMs));
process.stdout.write(`${message?.id ?? "none"}\n`);
setInterval(() => undefined, 60_000);
