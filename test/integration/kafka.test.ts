// Kafka on a real KRaft broker: lag per partition against Kafka's own ConsumerGroupCommand,
// lag in seconds, each of Burrow's statuses driven by a real scenario, DLQ topics, browsing
// untrusted records, redrive (and one whose connection is cut halfway, every record
// counted), purge, offset reset, and the bad inputs of the issue.
import crypto from "node:crypto";
import { Kafka, logLevel, type Admin, type Consumer, type Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBuiltInActions } from "@/server/actions/handlers";
import { actionRunner } from "@/server/actions/runner";
import { requestAction } from "@/server/actions/service";
import { browseMessages } from "@/server/brokers/browse";
import { REDRIVE_HEADER } from "@/server/brokers/kafka/actions";
import type { PartitionView } from "@/server/brokers/kafka/parse";
import { KafkaWire, type WireRecord } from "@/server/brokers/kafka/wire";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { getQueue, listBrokers } from "@/server/collect/queries";
import { collectorState } from "@/server/collect/state";
import { parseConfig } from "@/server/config/load";
import { disconnectDb } from "@/server/db/client";
import { renderMetrics } from "@/server/metrics/prometheus";
import { actionEnded } from "../support/actions";
import { describeGroups } from "../support/kafka-tools";
import { principal } from "../support/principals";
import { useFreshSqlite } from "../support/store";
import { startTcpProxy } from "../support/tcp-proxy";
import { pollUntil } from "../support/poll";
import { waitFor } from "../support/wait";

/** The broker's PROXIED listener: it advertises 19094, where this test runs a proxy to 9094. */
const PROXIED_LISTENER = 9094;
const PROXY_PORT = 19094;
const run = crypto.randomBytes(3).toString("hex");
const p = `kt-${run}-`;
const operator = principal("operator", "ops");
const kafka = new Kafka({ clientId: "varal-test", brokers: ["127.0.0.1:9092"], logLevel: logLevel.NOTHING });
const wire = new KafkaWire(kafka);
let admin: Admin;
let producer: Producer;
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
const consumers: Consumer[] = [];
let releaseStuck: () => void = () => undefined;

async function createTopic(topic: string, partitions = 1) {
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
}

async function produce(topic: string, messages: Array<{ key?: string | Buffer | null; value: string | Buffer | null; headers?: Record<string, string | Buffer>; partition?: number; timestamp?: string }>) {
  await producer.send({ topic, acks: -1, messages });
}

/** Commits for a group with no live member, as a standalone client would. */
async function commit(group: string, topic: string, offsets: Record<number, number>) {
  await wire.commit(group, topic, Object.entries(offsets).map(([partition, offset]) => ({ partition: Number(partition), offset })));
}

/** Every record of a topic, read outside any group. */
async function readAll(topic: string): Promise<WireRecord[]> {
  const [metadata] = await wire.metadata([topic]);
  const ranges = await wire.ranges(metadata.partitions.map((partition) => ({ topic, partition: partition.partition })));
  const records: WireRecord[] = [];
  for (const range of ranges) {
    for (let offset = range.start; offset < range.end; ) {
      const batch = await wire.records([{ topic, partition: range.partition, offset }], 1 << 20);
      if (batch.length === 0) break;
      records.push(...batch);
      offset = batch[batch.length - 1].offset + 1;
    }
  }
  return records;
}

async function action(kind: string, queue: string, params: Record<string, unknown>, dryRun = false) {
  const outcome = await requestAction(operator, { kind: kind as "redrive", target: { queue }, params, idempotencyKey: crypto.randomUUID(), dryRun }, null);
  return outcome;
}

async function started(kind: string, queue: string, params: Record<string, unknown>): Promise<string> {
  const outcome = await action(kind, queue, params);
  if (!("action" in outcome)) throw new Error("expected an action");
  return outcome.action.id;
}

function partitions(id: string): PartitionView[] {
  return getQueue(id).facts.partitions as PartitionView[];
}

beforeAll(async () => {
  await useFreshSqlite();
  registerBuiltInActions();
  admin = kafka.admin();
  await admin.connect();
  producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  proxy = await startTcpProxy(PROXIED_LISTENER, PROXY_PORT);
  await startCollectors(
    parseConfig(
      {
        pollIntervalMs: 600_000,
        brokers: [
          { name: "kafka", kind: "kafka", statusWindow: 4 },
          { name: "interpolated", kind: "kafka", timeLagReadsPerPoll: 0, statusWindow: 4 },
          { name: "proxied", kind: "kafka", brokers: [`127.0.0.1:${PROXY_PORT}`] },
          { name: "nowhere", kind: "kafka", brokers: ["127.0.0.1:1"] },
        ],
      },
      "test",
    ),
    { persistHistory: false },
  );
  await actionRunner().start();
});

afterAll(async () => {
  releaseStuck();
  await actionRunner().stop();
  await stopCollectors();
  for (const consumer of consumers) await consumer.disconnect().catch(() => undefined);
  const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(p));
  if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
  const groups = (await admin.listGroups()).groups.map((group) => group.groupId).filter((group) => group.startsWith(p));
  if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
  await proxy.cut().catch(() => undefined);
  await producer.disconnect();
  await admin.disconnect();
  await wire.disconnect();
  await disconnectDb();
});

describe("Kafka", () => {
  it("reports each partition's lag as Kafka's own ConsumerGroupCommand does", async () => {
    const topic = `${p}orders`;
    await createTopic(topic, 3);
    await produce(topic, Array.from({ length: 300 }, (_, i) => ({ key: `customer-${i % 17}`, value: `order ${i}` })));
    await commit(`${p}billing`, topic, { 0: 10, 1: 0, 2: 50 });
    await commit(`${p}audit`, topic, { 0: 1, 2: 7 });
    const live = kafka.consumer({ groupId: `${p}live` });
    consumers.push(live);
    await live.connect();
    await live.subscribe({ topic, fromBeginning: true });
    let seen = 0;
    await live.run({ eachMessage: async () => void seen++ });
    await waitFor(() => seen >= 300, { what: "the live consumer to read the topic" });
    await live.stop();
    await pollAllNow();
    const reference = await describeGroups(["--group", `${p}billing`, "--group", `${p}audit`, "--group", `${p}live`]);
    expect(reference.length).toBeGreaterThanOrEqual(8);
    await pollAllNow();
    for (const row of reference) {
      const ours = partitions(`kafka/${row.group}@${row.topic}`).find((partition) => partition.partition === row.partition)!;
      expect({ group: row.group, partition: row.partition, lag: ours.lag, end: ours.logEnd }).toEqual({ group: row.group, partition: row.partition, lag: row.lag, end: row.logEnd });
    }
    // /metrics carries the same per-partition lag, labelled by group, topic and partition.
    const metrics = renderMetrics([...collectorState().brokers.values()]);
    const billingRow = reference.find((row) => row.group === `${p}billing` && row.partition === 2)!;
    expect(metrics).toContain(`varal_partition_lag_messages{broker="kafka",queue="${p}billing@${topic}",group="${p}billing",topic="${topic}",partition="2"} ${billingRow.lag}\n`);
    const billing = getQueue(`kafka/${p}billing@${topic}`);
    expect(billing.lagMessages).toBe(reference.filter((row) => row.group === `${p}billing`).reduce((sum, row) => sum + (row.lag ?? 0), 0));
    expect(billing.facts.worstPartition).toMatchObject({ lag: Math.max(...reference.filter((row) => row.group === `${p}billing`).map((row) => row.lag ?? 0)) });
  });

  it("dates the lag by the record at the committed offset, or interpolates when it may not read", async () => {
    const topic = `${p}aged`;
    await createTopic(topic);
    const now = Date.now();
    await produce(topic, [300, 200, 100].map((ago) => ({ value: `written ${ago} s ago`, timestamp: String(now - ago * 1000) })));
    await commit(`${p}aged-group`, topic, { 0: 1 });
    // A partition just created may refuse a fetch for a moment: that poll interpolates.
    await pollUntil(() => partitions(`kafka/${p}aged-group@${topic}`)[0].lagSecondsFrom === "record", "the record-dated time lag");
    const [partition] = partitions(`kafka/${p}aged-group@${topic}`);
    expect(partition.lagSeconds!).toBeGreaterThanOrEqual(200);
    expect(partition.lagSeconds!).toBeLessThan(240);
    expect(getQueue(`kafka/${p}aged-group@${topic}`).lagSeconds).toBe(partition.lagSeconds);
    // The broker that may read no record dates the offset from its own end-offset samples:
    // the record was written before the first of them, so the figure is a lower bound.
    const [estimated] = partitions(`interpolated/${p}aged-group@${topic}`);
    expect(estimated.lagSecondsFrom).toBe("lower-bound");
    expect(estimated.lagSeconds!).toBeLessThan(partition.lagSeconds!);
  });

  it("drives each of Burrow's statuses with a real scenario, and says which rule fired", async () => {
    const events = `${p}events`;
    const quiet = `${p}quiet`;
    await createTopic(events);
    await createTopic(quiet);
    await produce(events, Array.from({ length: 20 }, (_, i) => ({ value: `event ${i}` })));
    await produce(quiet, [{ value: "only" }]);
    await commit(`${p}caught-up`, quiet, { 0: 1 });
    await commit(`${p}slow`, events, { 0: 5 });
    await commit(`${p}rewound`, events, { 0: 15 });
    // A consumer that reads and commits, then stops: its group keeps a commit and no member.
    const quitter = kafka.consumer({ groupId: `${p}quitter` });
    consumers.push(quitter);
    await quitter.connect();
    await quitter.subscribe({ topic: events, fromBeginning: true });
    let read = 0;
    await quitter.run({ autoCommitThreshold: 1, eachMessage: async () => void read++ });
    await waitFor(() => read >= 20, { what: "the quitter to read" });
    await quitter.disconnect();
    // A consumer stuck on its first record: alive, owning the partition, never committing.
    await commit(`${p}stuck`, events, { 0: 2 });
    const stuck = kafka.consumer({ groupId: `${p}stuck`, sessionTimeout: 30_000, heartbeatInterval: 1_000 });
    consumers.push(stuck);
    let released = false;
    releaseStuck = () => void (released = true);
    let holding = false;
    await stuck.connect();
    await stuck.subscribe({ topic: events });
    await stuck.run({
      eachMessage: async () => {
        holding = true;
        while (!released) await new Promise((resolve) => setTimeout(resolve, 100));
      },
    });
    await waitFor(() => holding, { what: "the stuck consumer to take its first record" });

    const window = 4;
    for (let step = 0; step < window + 1; step++) {
      await produce(events, Array.from({ length: 5 }, (_, i) => ({ value: `more ${step}.${i}` })));
      // The slow group commits, but less than what arrives.
      await commit(`${p}slow`, events, { 0: 6 + step });
      if (step === window) await commit(`${p}rewound`, events, { 0: 3 });
      await pollAllNow();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const verdict = (group: string, topic = events) => {
      const queue = getQueue(`kafka/${group}@${topic}`);
      return { burrow: queue.facts.burrowStatus, status: queue.status, reason: queue.statusReason };
    };
    expect(verdict(`${p}caught-up`, quiet)).toMatchObject({ burrow: "OK", status: "ok" });
    expect(verdict(`${p}slow`)).toMatchObject({ burrow: "WARN", status: "warning", reason: expect.stringContaining("lag never decreased") });
    expect(verdict(`${p}quitter`)).toMatchObject({ burrow: "STOP", status: "stopped", reason: expect.stringContaining("no live member owns") });
    expect(verdict(`${p}stuck`)).toMatchObject({ burrow: "STALL", status: "stalled", reason: expect.stringContaining("owns the partition") });
    expect(verdict(`${p}rewound`)).toMatchObject({ burrow: "REWIND", status: "warning", reason: expect.stringContaining("went back from 15 to 3") });
    expect(getQueue(`kafka/${p}stuck@${events}`).facts.members).toEqual([expect.objectContaining({ partitions: [0] })]);

    // An offset reset while the group has a live member is refused, and changes nothing.
    await expect(action("offset-reset", `kafka/${p}stuck@${events}`, { to: "latest" })).rejects.toMatchObject({
      code: "conflict",
      message: expect.stringContaining("stop its consumers first"),
    });
    expect((await admin.fetchOffsets({ groupId: `${p}stuck`, topics: [events] }))[0].partitions[0].offset).toBe("2");
  });

  it("finds DLQ topics by name and by header, and links each group to its DLQ", async () => {
    const source = `${p}payments`;
    await createTopic(source);
    await createTopic(`${source}.DLQ`);
    await createTopic(`${p}failures`);
    await produce(`${p}failures`, [{ value: "x", headers: { "kafka_dlt-original-topic": source } }]);
    await commit(`${p}payer`, source, { 0: 0 });
    await pollUntil(() => getQueue(`kafka/varal-redrive@${p}failures`).facts.detectedBy === "header", "the header-detected DLQ");
    expect(getQueue(`kafka/varal-redrive@${source}.DLQ`).facts).toMatchObject({ detectedBy: "name", deadLetterOf: source });
    expect(getQueue(`kafka/varal-redrive@${p}failures`)).toMatchObject({ depth: 1, status: "warning", facts: { deadLetterOf: source } });
    expect(getQueue(`kafka/${p}payer@${source}`).dlq?.id).toMatch(/^kafka\/varal-redrive@/);
  });

  it("browses binary, invalid UTF-8 and script records as inert data, from an offset or a time, page by page", async () => {
    const topic = `${p}raw.DLQ`;
    await createTopic(topic, 2);
    const written = Date.now();
    await produce(topic, [
      { key: Buffer.from([0, 1, 0xff]), value: Buffer.from([0xc3, 0x28, 0x00]), headers: { "x-bin": Buffer.from([0xff, 0xfe]), "x-exception-message": "boom" }, partition: 0 },
      { key: "k", value: "<script>alert(1)</script>", partition: 1 },
      { key: null, value: null, partition: 1 },
      ...Array.from({ length: 7 }, (_, i) => ({ value: `filler ${i}`, partition: i % 2 })),
    ]);
    await pollUntil(() => getQueue(`kafka/varal-redrive@${topic}`).depth === 10, "the DLQ's depth");
    const queue = getQueue(`kafka/varal-redrive@${topic}`);
    const broker = collectorState().brokers.get("kafka")!.config;
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await browseMessages({ queue, broker, limit: 3, cursor, confirmSideEffects: false });
      expect(result.sideEffects).toBe("none");
      ids.push(...result.items.map((item) => item.id));
      if (!result.nextCursor) break;
      cursor = result.nextCursor;
    }
    expect(ids.sort()).toEqual(["0:0", "0:1", "0:2", "0:3", "0:4", "1:0", "1:1", "1:2", "1:3", "1:4"]);
    const first = await browseMessages({ queue, broker, limit: 10, confirmSideEffects: false });
    const binary = first.items.find((item) => item.id === "0:0")!;
    expect(binary.payload).toMatchObject({ encoding: "base64", text: Buffer.from([0xc3, 0x28, 0x00]).toString("base64") });
    expect(binary.headers["x-bin"]).toMatch(/^\(binary, 2 bytes\)/);
    expect(binary.headers["kafka.key"]).toMatch(/^\(binary, 3 bytes\)/);
    expect(binary.reason).toBe("boom");
    expect(first.items.find((item) => item.id === "1:0")!.payload).toMatchObject({ encoding: "utf8", text: "<script>alert(1)</script>" });
    expect(first.items.find((item) => item.id === "1:1")!.payload).toBeNull();
    const fromOffset = await browseMessages({ queue, broker, limit: 10, confirmSideEffects: false, from: { offset: 4 } });
    expect(fromOffset.items.map((item) => item.id).sort()).toEqual(["0:4", "1:4"]);
    const fromFuture = await browseMessages({ queue, broker, limit: 10, confirmSideEffects: false, from: { time: new Date(written + 3_600_000).toISOString() } });
    expect(fromFuture.items).toEqual([]);
    await expect(browseMessages({ queue, broker, limit: 10, confirmSideEffects: false, cursor: "not-a-cursor" })).rejects.toMatchObject({ code: "invalid_input" });
  });

  it("redrives a DLQ topic to the topics its headers name, committing Varal's group, every record counted", async () => {
    const source = `${p}shipping`;
    const dlq = `${source}.DLQ`;
    await createTopic(source, 2);
    await createTopic(dlq, 3);
    const total = 1_000;
    await produce(dlq, Array.from({ length: total }, (_, i) => ({ key: `k${i}`, value: `dead ${i}`, headers: { "x-original-topic": source } })));
    await pollUntil(() => getQueue(`kafka/varal-redrive@${dlq}`).depth === total, "the DLQ");
    const preview = await action("redrive", `kafka/varal-redrive@${dlq}`, {}, true);
    expect(preview).toMatchObject({ dryRun: { wouldAffect: total } });
    const done = await actionEnded(await started("redrive", `kafka/varal-redrive@${dlq}`, {}));
    expect(done).toMatchObject({ state: "succeeded", result: { moved: total, destinations: { [source]: total } } });
    const copies = await readAll(source);
    expect(copies.map((record) => record.value!.toString()).sort()).toEqual(Array.from({ length: total }, (_, i) => `dead ${i}`).sort());
    expect(copies.every((record) => record.headers[REDRIVE_HEADER] !== undefined && record.headers["x-original-topic"] !== undefined)).toBe(true);
    await pollUntil(() => getQueue(`kafka/varal-redrive@${dlq}`).depth === 0, "the DLQ to show nothing waiting");
    // Nothing left to redrive: a second run moves nothing.
    const again = await actionEnded(await started("redrive", `kafka/varal-redrive@${dlq}`, {}));
    expect(again).toMatchObject({ state: "succeeded", result: { moved: 0 } });
  });

  it("loses nothing when the redrive's connection is cut halfway, and a second run finishes it", async () => {
    const source = `${p}invoices`;
    const dlq = `${source}-dlt`;
    await createTopic(source, 2);
    await createTopic(dlq, 2);
    const total = 3_000;
    const values = Array.from({ length: total }, (_, i) => `invoice ${i}`);
    await produce(dlq, values.map((value) => ({ value })));
    await pollUntil(() => getQueue(`proxied/varal-redrive@${dlq}`).depth === total, "the DLQ through the proxy");
    const id = await started("redrive", `proxied/varal-redrive@${dlq}`, { maxPerSecond: 1_000 });
    await waitFor(async () => (await admin.fetchTopicOffsets(source)).reduce((sum, partition) => sum + Number(partition.high), 0) >= 600, {
      what: "the redrive under way",
    });
    await proxy.cut();
    const failed = await actionEnded(id);
    expect(failed.state).toBe("failed");
    // Every record is in the destination, or past Varal's commit in the DLQ (or both).
    const committed = new Map((await admin.fetchOffsets({ groupId: "varal-redrive", topics: [dlq] }))[0].partitions.map((entry) => [entry.partition, Number(entry.offset)]));
    const dead = await readAll(dlq);
    const notRedriven = dead.filter((record) => record.offset >= (committed.get(record.partition) ?? 0)).map((record) => record.value!.toString());
    const redriven = new Set((await readAll(source)).map((record) => record.value!.toString()));
    expect(notRedriven.length).toBeGreaterThan(0);
    expect(dead.filter((record) => record.offset < (committed.get(record.partition) ?? 0)).every((record) => redriven.has(record.value!.toString()))).toBe(true);
    expect(new Set([...redriven, ...notRedriven])).toEqual(new Set(values));
    // The same DLQ through the direct listener: the rest goes, from Varal's commit on.
    await pollAllNow();
    const rest = await actionEnded(await started("redrive", `kafka/varal-redrive@${dlq}`, {}));
    expect(rest).toMatchObject({ state: "succeeded", result: { moved: notRedriven.length } });
    expect(new Set((await readAll(source)).map((record) => record.value!.toString()))).toEqual(new Set(values));
    proxy = await startTcpProxy(PROXIED_LISTENER, PROXY_PORT);
  });

  it("refuses a topic that is no DLQ, stops at a record that names no topic or a topic that does not exist, and takes them where asked", async () => {
    const plain = `${p}plain`;
    await createTopic(plain);
    await produce(plain, [{ value: "an ordinary record" }]);
    await pollAllNow();
    await expect(action("redrive", `kafka/varal-redrive@${plain}`, {})).rejects.toMatchObject({ code: "not_found" });
    // Found by the header of its last record; the first record has none.
    const mixed = `${p}mixed`;
    await createTopic(mixed);
    await produce(mixed, [{ value: "no header" }, { value: "with header", headers: { "x-original-topic": plain } }]);
    await pollUntil(() => getQueue(`kafka/varal-redrive@${mixed}`).depth === 2, "the header-detected DLQ");
    const stopped = await actionEnded(await started("redrive", `kafka/varal-redrive@${mixed}`, {}));
    expect(stopped).toMatchObject({ state: "failed", error: expect.stringContaining("names no original topic") });
    expect((await admin.fetchOffsets({ groupId: "varal-redrive", topics: [mixed] }))[0].partitions[0].offset).toBe("-1");
    const lost = `${p}lost.DLQ`;
    await createTopic(lost);
    await produce(lost, [{ value: "to a topic that does not exist" }]);
    await pollUntil(() => getQueue(`kafka/varal-redrive@${lost}`).depth === 1, "the DLQ");
    const failed = await actionEnded(await started("redrive", `kafka/varal-redrive@${lost}`, {}));
    expect(failed).toMatchObject({ state: "failed", error: expect.stringContaining(`Topic ${p}lost does not exist`) });
    expect((await admin.listTopics()).includes(`${p}lost`)).toBe(false);
    for (const dlq of [mixed, lost]) {
      const moved = await actionEnded(await started("redrive", `kafka/varal-redrive@${dlq}`, { destination: plain }));
      expect(moved).toMatchObject({ state: "succeeded", result: { destinations: { [plain]: moved.result && (moved.result as { moved: number }).moved } } });
    }
    expect((await readAll(plain)).map((record) => record.value!.toString()).sort()).toEqual(
      ["an ordinary record", "no header", "to a topic that does not exist", "with header"].sort(),
    );
  });

  it("purges a DLQ topic up to its end offset, only with its name typed", async () => {
    const dlq = `${p}trash.DLQ`;
    await createTopic(dlq, 2);
    await produce(dlq, Array.from({ length: 40 }, (_, i) => ({ value: `junk ${i}`, partition: i % 2 })));
    await pollUntil(() => getQueue(`kafka/varal-redrive@${dlq}`).depth === 40, "the DLQ");
    await expect(action("purge", `kafka/varal-redrive@${dlq}`, { confirm: "nope" })).rejects.toMatchObject({ code: "invalid_input" });
    const done = await actionEnded(await started("purge", `kafka/varal-redrive@${dlq}`, { confirm: `varal-redrive@${dlq}` }));
    expect(done).toMatchObject({ state: "succeeded", result: { deleted: 40 } });
    const offsets = await admin.fetchTopicOffsets(dlq);
    expect(offsets.every((partition) => partition.low === partition.high && partition.high === "20")).toBe(true);
    await pollUntil(() => getQueue(`kafka/varal-redrive@${dlq}`).depth === 0, "the purged DLQ");
  });

  it("resets a group's offsets to earliest, latest, a time or an offset, and refuses what is out of range", async () => {
    const topic = `${p}ledger`;
    await createTopic(topic, 2);
    const before = Date.now();
    await produce(topic, Array.from({ length: 20 }, (_, i) => ({ value: `entry ${i}`, partition: i % 2, timestamp: String(before - (20 - i) * 60_000) })));
    const group = `${p}ledger-reader`;
    await commit(group, topic, { 0: 5, 1: 5 });
    await pollUntil(() => getQueue(`kafka/${group}@${topic}`).lagMessages === 10, "the group");
    const queue = `kafka/${group}@${topic}`;
    const offsetsNow = async () => (await admin.fetchOffsets({ groupId: group, topics: [topic] }))[0].partitions.map((entry) => Number(entry.offset)).join(",");

    const preview = await action("offset-reset", queue, { to: "latest", partitions: [1] }, true);
    expect(preview).toMatchObject({ dryRun: { wouldAffect: 5, sample: [{ partition: 1, from: 5, to: 10 }], warnings: [expect.stringContaining("skips 5 record(s)"), expect.any(String)] } });
    expect(await offsetsNow()).toBe("5,5");
    expect(await actionEnded(await started("offset-reset", queue, { to: "latest", partitions: [1] }))).toMatchObject({ state: "succeeded" });
    expect(await offsetsNow()).toBe("5,10");
    await actionEnded(await started("offset-reset", queue, { to: "earliest" }));
    expect(await offsetsNow()).toBe("0,0");
    // Records were written a minute apart, partition by partition: the 8th minute back finds offset 6 on each.
    await actionEnded(await started("offset-reset", queue, { to: "timestamp", value: new Date(before - 8 * 60_000).toISOString() }));
    expect(await offsetsNow()).toBe("6,6");
    await actionEnded(await started("offset-reset", queue, { to: "offset", value: 3, partitions: [0] }));
    expect(await offsetsNow()).toBe("3,6");

    await expect(action("offset-reset", queue, { to: "offset", value: 99 }, true)).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("holds 0 to 10") });
    await expect(action("offset-reset", queue, { to: "offset" })).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("params.value") });
    await expect(action("offset-reset", queue, { to: "timestamp", value: "yesterday-ish" })).rejects.toMatchObject({ code: "invalid_input" });
    await expect(action("offset-reset", queue, { to: "earliest", partitions: [7] }, true)).rejects.toMatchObject({ message: expect.stringContaining("no partition 7") });
    expect(await offsetsNow()).toBe("3,6");
  });

  it("says so when the bootstrap server is unreachable, and carries on when a polled topic is deleted", async () => {
    await pollAllNow();
    const nowhere = listBrokers().find((broker) => broker.name === "nowhere")!;
    expect(nowhere.status).toBe("unreachable");
    expect(nowhere.lastError).toContain("check brokers.nowhere.brokers");
    const topic = `${p}doomed`;
    await createTopic(topic);
    await produce(topic, [{ value: "a" }, { value: "b" }]);
    await commit(`${p}doomed-group`, topic, { 0: 1 });
    await pollUntil(() => getQueue(`kafka/${p}doomed-group@${topic}`).lagMessages === 1, "the group");
    await admin.deleteTopics({ topics: [topic] });
    await pollAllNow();
    expect(listBrokers().find((broker) => broker.name === "kafka")!.status).toBe("ok");
    // Kafka may drop the group's offsets with the topic; if it has not yet, Varal says why the figures are gone.
    const left = collectorState().brokers.get("kafka")!.snapshots.find((queue) => queue.name === `${p}doomed-group@${topic}`);
    if (left) expect(left).toMatchObject({ status: "warning", statusReason: expect.stringContaining("no longer exists"), lagMessages: null });
  });
});
