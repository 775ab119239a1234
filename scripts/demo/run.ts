// npm run demo [-- part ...]: produces traffic into the local brokers so the dashboard has
// something to show. Ctrl-C stops producing, lets consumers finish what they hold, and exits.
import { startAgentDemo } from "./agent";
import { startKafkaDemo } from "./kafka";
import { startRabbitMqDemo } from "./rabbitmq";
import { startRedisDemo } from "./redis";
import { startSqsDemo } from "./sqs";

const PARTS: Record<string, () => Promise<() => Promise<void>>> = {
  redis: () => startRedisDemo(),
  rabbitmq: () => startRabbitMqDemo(),
  kafka: () => startKafkaDemo(),
  agent: () => startAgentDemo(),
  sqs: () => startSqsDemo(),
};

const requested = process.argv.slice(2);
const unknown = requested.filter((part) => !(part in PARTS));
if (unknown.length > 0) {
  console.error(`unknown demo part ${unknown.join(", ")}: choose from ${Object.keys(PARTS).join(", ")}`);
  process.exit(2);
}
const stops = await Promise.all((requested.length > 0 ? requested : Object.keys(PARTS)).map((part) => PARTS[part]()));
console.log("demo: running; open the dashboard (npm start) and press Ctrl-C here to stop");
const stop = async () => {
  await Promise.all(stops.map((stopPart) => stopPart()));
  process.exit(0);
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
