// npm run bench -- <name>: runs one benchmark (or all with no name). Benchmarks print
// figures and write bench-results/<name>.json; they never pass or fail on a time.
import { runAgentBenchmark } from "./agent";
import { runAlertsBenchmark } from "./alerts";
import { runApiBenchmark } from "./api";
import { runKafkaBenchmark } from "./kafka";
import { runRabbitMqBenchmark } from "./rabbitmq";
import { runRedisBenchmark } from "./redis";
import { runSqsBenchmark } from "./sqs";

const BENCHMARKS: Record<string, () => Promise<void>> = {
  agent: runAgentBenchmark,
  alerts: runAlertsBenchmark,
  api: runApiBenchmark,
  kafka: runKafkaBenchmark,
  redis: runRedisBenchmark,
  rabbitmq: runRabbitMqBenchmark,
  sqs: runSqsBenchmark,
};


const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in BENCHMARKS));
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(", ")}: choose from ${Object.keys(BENCHMARKS).join(", ")}`);
  process.exit(2);
}
for (const name of requested.length > 0 ? requested : Object.keys(BENCHMARKS)) {
  await BENCHMARKS[name]();
}
