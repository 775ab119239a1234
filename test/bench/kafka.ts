// Kafka benchmark on the local broker: one full lag snapshot over 500 topics x 4 partitions
// with 1, 30 and 300 consumer groups, side by side with Kafka's own
// `kafka-consumer-groups --describe --all-groups` over the same cluster; then a redrive of
// 100,000 DLQ records.
import crypto from "node:crypto";
import { Kafka, logLevel } from "kafkajs";
import { redrive } from "../../server/brokers/kafka/actions";
import { KafkaAdapter } from "../../server/brokers/kafka/adapter";
import { KafkaWire } from "../../server/brokers/kafka/wire";
import { mapBounded } from "../../server/brokers/types";
import type { QueueSnapshot } from "../../server/collect/snapshot";
import { parseConfig } from "../../server/config/load";
import type { BrokerConfigOf } from "../../server/config/schema";
import { describeGroups } from "../support/kafka-tools";
import { median, printTable, writeResults } from "./stats";

const TOPICS = Number(process.env.BENCH_KAFKA_TOPICS ?? 500);
const PARTITIONS = 4;
const GROUP_STEPS = (process.env.BENCH_KAFKA_GROUPS ?? "1,30,300").split(",").map(Number);
const RECORDS = Number(process.env.BENCH_KAFKA_RECORDS ?? 100_000);
const ROUNDS = 3;

/** Runs Kafka's ConsumerGroupCommand over every group; its wall time and how many groups it described. */
async function kafkaTool(): Promise<{ ms: number; groups: number }> {
  const started = performance.now();
  const rows = await describeGroups(["--all-groups"]);
  return { ms: performance.now() - started, groups: new Set(rows.map((row) => row.group)).size };
}

export async function runKafkaBenchmark(): Promise<void> {
  const run = crypto.randomBytes(3).toString("hex");
  const prefix = `bench-${run}-`;
  const kafka = new Kafka({ clientId: "varal-bench", brokers: ["127.0.0.1:9092"], logLevel: logLevel.NOTHING, requestTimeout: 60_000 });
  const admin = kafka.admin();
  const wire = new KafkaWire(kafka);
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await admin.connect();
  await producer.connect();
  const topics = Array.from({ length: TOPICS }, (_, i) => `${prefix}t${i}`);
  const groups: string[] = [];
  try {
    console.log(`kafka benchmark: ${TOPICS} topics x ${PARTITIONS} partitions, groups ${GROUP_STEPS.join(" / ")}, redrive of ${RECORDS} records\n`);
    for (let start = 0; start < topics.length; start += 50) {
      await admin.createTopics({ topics: topics.slice(start, start + 50).map((topic) => ({ topic, numPartitions: PARTITIONS })), waitForLeaders: false, timeout: 60_000 });
    }
    // kafkajs's own wait trips over topics the broker has not loaded yet: wait on metadata.
    for (;;) {
      const ready = (await wire.metadata(topics)).filter((topic) => topic.partitions.length === PARTITIONS && topic.partitions.every((p) => p.leader >= 0));
      if (ready.length === TOPICS) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    await mapBounded(topics, 8, (topic) => producer.send({ topic, acks: -1, messages: Array.from({ length: 40 }, (_, i) => ({ key: `k${i}`, value: `record ${i} of ${topic}` })) }));

    const config = parseConfig({ brokers: [{ name: "kafka", kind: "kafka" }] }, "bench").brokers[0] as BrokerConfigOf<"kafka">;
    const rows: Array<Record<string, string | number>> = [];
    const results: Array<Record<string, number>> = [];
    for (const target of GROUP_STEPS) {
      // Each group reads two topics and is a few records behind on each partition.
      while (groups.length < target) {
        const i = groups.length;
        const group = `${prefix}g${i}`;
        for (const topic of [topics[i % TOPICS], topics[(i + Math.floor(TOPICS / 2)) % TOPICS]]) {
          await wire.commit(group, topic, Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, offset: (i + partition) % 8 })));
        }
        groups.push(group);
      }
      const varal: number[] = [];
      const warm: number[] = [];
      let calls = 0;
      let queues = 0;
      for (let round = 0; round < ROUNDS; round++) {
        calls = 0;
        const adapter = new KafkaAdapter(config, { countCalls: (n = 1) => void (calls += n) }, 60_000);
        const started = performance.now();
        queues = (await adapter.poll(new AbortController().signal)).queues.length;
        varal.push(performance.now() - started);
        const again = performance.now();
        await adapter.poll(new AbortController().signal);
        warm.push(performance.now() - again);
        await adapter.close();
      }
      const tool: number[] = [];
      let described = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const outcome = await kafkaTool();
        tool.push(outcome.ms);
        described = outcome.groups;
      }
      const ratio = median(varal) / median(tool);
      rows.push({
        groups: target,
        "varal queues": queues,
        "varal ms (cold)": median(varal).toFixed(0),
        "varal ms (warm)": median(warm).toFixed(0),
        "broker calls": calls,
        "kafka tool groups": described,
        "kafka tool ms": median(tool).toFixed(0),
        "varal/tool": ratio.toFixed(2),
      });
      results.push({ groups: target, queues, varalColdMs: median(varal), varalWarmMs: median(warm), calls, toolGroups: described, toolMs: median(tool), ratio });
    }
    printTable(rows);
    console.log(`\n(medians of ${ROUNDS}; cold = a new client that connects and dates every lag; the tool's time includes its JVM start)\n`);

    const dlq = `${prefix}orders.DLQ`;
    const original = `${prefix}orders`;
    await admin.createTopics({ topics: [{ topic: dlq, numPartitions: PARTITIONS }, { topic: original, numPartitions: PARTITIONS }], waitForLeaders: true });
    const payload = "x".repeat(100);
    for (let start = 0; start < RECORDS; start += 2_000) {
      await producer.send({
        topic: dlq,
        acks: -1,
        messages: Array.from({ length: Math.min(2_000, RECORDS - start) }, (_, i) => ({ key: `k${start + i}`, value: `${start + i} ${payload}`, headers: { "x-original-topic": original } })),
      });
    }
    const queue = {
      id: `kafka/varal-redrive@${dlq}`,
      broker: "kafka",
      kind: "kafka",
      name: `varal-redrive@${dlq}`,
      facts: { topic: dlq, group: "varal-redrive", detectedBy: "name", deadLetterOf: original },
    } as unknown as QueueSnapshot;
    const started = performance.now();
    const outcome = (await redrive.run({
      actionId: `bench-${run}`,
      queue,
      broker: config,
      params: {},
      signal: new AbortController().signal,
      progress: async () => undefined,
    })) as { moved: number };
    const seconds = (performance.now() - started) / 1000;
    const landed = (await admin.fetchTopicOffsets(original)).reduce((sum, partition) => sum + Number(partition.high), 0);
    printTable([{ redrive: "DLQ topic -> original (idempotent, acks=all, commit after produce)", records: outcome.moved, seconds: seconds.toFixed(1), "records/s": Math.round(outcome.moved / seconds) }]);
    console.log(`\nrecords in the original topic afterwards: ${landed} of ${RECORDS}`);
    console.log(
      `results: ${writeResults("kafka", {
        topics: TOPICS,
        partitions: PARTITIONS,
        snapshot: results,
        redrive: { records: outcome.moved, seconds, perSecond: outcome.moved / seconds, landed },
      })}`,
    );
  } finally {
    for (let start = 0; start < groups.length; start += 100) await admin.deleteGroups(groups.slice(start, start + 100)).catch(() => undefined);
    const mine = (await admin.listTopics()).filter((topic) => topic.startsWith(prefix));
    for (let start = 0; start < mine.length; start += 100) await admin.deleteTopics({ topics: mine.slice(start, start + 100), timeout: 60_000 }).catch(() => undefined);
    await producer.disconnect();
    await wire.disconnect();
    await admin.disconnect();
  }
}
