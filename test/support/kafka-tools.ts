// Kafka's own command-line tools, from the jars the services script fetched, as the
// reference Varal's figures are compared with.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const classpath = path.join(root, ".services/kafka/lib/*");
const log4j = `file:${path.join(root, "scripts/services/kafka-log4j.properties")}`;

export interface DescribedPartition {
  group: string;
  topic: string;
  partition: number;
  /** null where the tool prints "-" (no commit). */
  current: number | null;
  logEnd: number;
  lag: number | null;
}

/** Runs `kafka-consumer-groups --describe` with the given arguments; parses its table. */
export async function describeGroups(args: string[], bootstrap = "127.0.0.1:9092"): Promise<DescribedPartition[]> {
  const { stdout } = await run(
    "java",
    ["-Xmx256m", "-cp", classpath, `-Dlog4j.configuration=${log4j}`, "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", "--bootstrap-server", bootstrap, "--describe", ...args],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const rows: DescribedPartition[] = [];
  for (const line of stdout.split("\n")) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 6 || cells[0] === "GROUP" || !/^\d+$/.test(cells[2])) continue;
    const number = (cell: string) => (cell === "-" ? null : Number(cell));
    rows.push({ group: cells[0], topic: cells[1], partition: Number(cells[2]), current: number(cells[3]), logEnd: Number(cells[4]), lag: number(cells[5]) });
  }
  return rows;
}
