// SQS on ElasticMQ: redrive policy detection, the message browser's side effects, redrive by
// move task and by hand with every message counted, FIFO order, cancel, purge cooldown,
// and a redrive whose connection is cut halfway.
import crypto from "node:crypto";
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  SendMessageBatchCommand,
} from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBuiltInActions } from "@/server/actions/handlers";
import { actionsFor } from "@/server/actions/registry";
import { actionRunner } from "@/server/actions/runner";
import { cancelAction, getAction, requestAction } from "@/server/actions/service";
import { browseMessages } from "@/server/brokers/browse";
import { ORIGINAL_ID_ATTRIBUTE } from "@/server/brokers/sqs/move";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { getQueue, listBrokers } from "@/server/collect/queries";
import { collectorState } from "@/server/collect/state";
import { parseConfig } from "@/server/config/load";
import { disconnectDb } from "@/server/db/client";
import { principal } from "../support/principals";
import { useFreshSqlite } from "../support/store";
import { startTcpProxy } from "../support/tcp-proxy";
import { actionEnded } from "../support/actions";
import { waitFor } from "../support/wait";

const ENDPOINT = "http://127.0.0.1:9324";
const sqs = new SQSClient({ region: "us-east-1", endpoint: ENDPOINT, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
const run = crypto.randomBytes(3).toString("hex");
const prefix = `sqs-${run}-`;
const operator = principal("operator", "ops");
const created: string[] = [];
let counter = 0;

async function createQueue(name: string, attributes: Record<string, string> = {}): Promise<{ url: string; arn: string }> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  created.push(QueueUrl!);
  const arn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }))).Attributes!.QueueArn!;
  return { url: QueueUrl!, arn };
}

/** A source queue and its DLQ, with `count` messages dead-lettered the way SQS does it. */
async function pairWithDeadLetters(count: number, fifo = false) {
  const base = `${prefix}${counter++}`;
  const suffix = fifo ? ".fifo" : "";
  const fifoAttributes: Record<string, string> = fifo ? { FifoQueue: "true", ContentBasedDeduplication: "false" } : {};
  const dlq = await createQueue(`${base}-dlq${suffix}`, fifoAttributes);
  const source = await createQueue(`${base}${suffix}`, {
    ...fifoAttributes,
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.arn, maxReceiveCount: 1 }),
  });
  for (let start = 0; start < count; start += 10) {
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: source.url,
        Entries: Array.from({ length: Math.min(10, count - start) }, (_, i) => ({ Id: String(i), MessageBody: `message ${start + i}` })),
      }),
    );
  }
  // Received once (its limit), then received again: SQS moves it to the DLQ.
  for (let tries = 0; tries < 100 && (await depth(dlq.url)) < count; tries++) {
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: source.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
  }
  expect(await depth(dlq.url)).toBe(count);
  return { source, dlq, sourceName: `${base}${suffix}`, dlqName: `${base}-dlq${suffix}` };
}

async function counts(url: string): Promise<{ visible: number; hidden: number }> {
  const attributes = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes!;
  return { visible: Number(attributes.ApproximateNumberOfMessages), hidden: Number(attributes.ApproximateNumberOfMessagesNotVisible) };
}

async function depth(url: string): Promise<number> {
  const { visible, hidden } = await counts(url);
  return visible + hidden;
}

/** Receives and deletes every message of a queue, returning bodies in order. */
async function drain(url: string): Promise<Array<{ body: string; group?: string; originalId?: string }>> {
  const out: Array<{ body: string; group?: string; originalId?: string }> = [];
  for (let empty = 0; empty < 2; ) {
    const page = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ["All"], MessageSystemAttributeNames: ["All"] }),
    );
    if (!page.Messages?.length) {
      empty++;
      continue;
    }
    for (const message of page.Messages) {
      out.push({ body: message.Body!, group: message.Attributes?.MessageGroupId, originalId: message.MessageAttributes?.[ORIGINAL_ID_ATTRIBUTE]?.StringValue });
      await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
    }
  }
  return out;
}

async function startAction(kind: "redrive" | "purge", queue: string, params: Record<string, unknown>) {
  const outcome = await requestAction(operator, { kind, target: { queue: `sqs/${queue}` }, params, idempotencyKey: crypto.randomUUID() }, null);
  if (!("action" in outcome)) throw new Error("expected an action");
  return outcome.action.id;
}

async function useBroker(endpoint = ENDPOINT): Promise<void> {
  await stopCollectors();
  await startCollectors(
    parseConfig({ pollIntervalMs: 60_000, brokers: [{ name: "sqs", kind: "sqs", endpoint, accessKeyId: "local", secretAccessKey: "local", queueNamePrefix: prefix }] }, "test"),
    { persistHistory: false },
  );
  await pollAllNow();
}

beforeAll(async () => {
  await useFreshSqlite();
  registerBuiltInActions();
  await actionRunner().start();
});

afterAll(async () => {
  await actionRunner().stop();
  await stopCollectors();
  await disconnectDb();
  for (const url of created) await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
  sqs.destroy();
});

describe("SQS", () => {
  it("detects redrive policies: a queue links to its DLQ, the DLQ lists its source", async () => {
    const pair = await pairWithDeadLetters(3);
    await useBroker();
    const source = getQueue(`sqs/${pair.sourceName}`);
    expect(source).toMatchObject({ dlq: { id: `sqs/${pair.dlqName}`, depth: 3 }, facts: { maxReceiveCount: 1, approximate: true, arn: pair.source.arn } });
    const dlq = getQueue(`sqs/${pair.dlqName}`);
    expect(dlq.sources).toEqual([{ id: `sqs/${pair.sourceName}`, depth: 0 }]);
    expect(actionsFor(dlq)).toEqual(["redrive", "purge"]);
    expect(actionsFor(source)).toEqual(["purge"]);
  });

  it("asks before reading a queue whose reads can dead-letter, reads a DLQ freely, and shows bodies as text", async () => {
    const pair = await pairWithDeadLetters(0);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: pair.dlq.url,
        Entries: [
          { Id: "1", MessageBody: "{not json" },
          { Id: "2", MessageBody: "<script>alert(1)</script>", MessageAttributes: { tenant: { DataType: "String", StringValue: "acme" } } },
        ],
      }),
    );
    await sqs.send(new SendMessageBatchCommand({ QueueUrl: pair.source.url, Entries: [{ Id: "1", MessageBody: "live" }] }));
    await useBroker();
    const broker = collectorState().brokers.get("sqs")!.config;
    await expect(browseMessages({ queue: getQueue(`sqs/${pair.sourceName}`), broker, limit: 10, confirmSideEffects: false })).rejects.toMatchObject({
      code: "conflict",
      details: { sideEffects: "receive-count" },
    });
    expect(await counts(pair.source.url)).toEqual({ visible: 1, hidden: 0 });
    const page = await browseMessages({ queue: getQueue(`sqs/${pair.dlqName}`), broker, limit: 10, confirmSideEffects: false });
    expect(page.sideEffects).toBe("none");
    expect(page.items.map((item) => item.payload?.text).sort()).toEqual(["<script>alert(1)</script>", "{not json"]);
    expect(page.items.find((item) => item.payload?.text.startsWith("<script"))!.headers).toMatchObject({ tenant: "acme" });
    // Visible again at once.
    expect(await counts(pair.dlq.url)).toEqual({ visible: 2, hidden: 0 });
  });

  it("redrives by move task back to the source, every message counted", async () => {
    const pair = await pairWithDeadLetters(40);
    await useBroker();
    const action = await actionEnded(await startAction("redrive", pair.dlqName, { method: "move-task" }));
    expect(action).toMatchObject({ state: "succeeded", result: { method: "move-task" } });
    await waitFor(async () => (await depth(pair.source.url)) === 40, { what: "40 messages back in the source" });
    expect(await depth(pair.dlq.url)).toBe(0);
    expect((await drain(pair.source.url)).map((message) => message.body).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `message ${i}`).sort());
  });

  it("redrives the first N by hand, keeping the original id on each copy", async () => {
    const pair = await pairWithDeadLetters(25);
    await useBroker();
    const action = await actionEnded(await startAction("redrive", pair.dlqName, { limit: 15 }));
    expect(action).toMatchObject({ state: "succeeded", result: { method: "manual", moved: 15, destination: pair.sourceName } });
    const moved = await drain(pair.source.url);
    const left = await drain(pair.dlq.url);
    expect(moved.length).toBe(15);
    expect(left.length).toBe(10);
    expect(moved.every((message) => message.originalId)).toBe(true);
    expect(new Set([...moved, ...left].map((message) => message.body)).size).toBe(25);
  });

  it("keeps each group's order when a FIFO DLQ is redriven", async () => {
    const pair = await pairWithDeadLetters(0, true);
    const entries = Array.from({ length: 30 }, (_, i) => ({
      Id: String(i),
      MessageBody: `g${i % 3}-${Math.floor(i / 3)}`,
      MessageGroupId: `g${i % 3}`,
      MessageDeduplicationId: `d${i}`,
    }));
    for (let i = 0; i < entries.length; i += 10) await sqs.send(new SendMessageBatchCommand({ QueueUrl: pair.dlq.url, Entries: entries.slice(i, i + 10) }));
    await useBroker();
    const action = await actionEnded(await startAction("redrive", pair.dlqName, { method: "manual" }));
    expect(action).toMatchObject({ state: "succeeded", result: { moved: 30 } });
    const byGroup = new Map<string, string[]>();
    for (const message of await drain(pair.source.url)) byGroup.set(message.group!, [...(byGroup.get(message.group!) ?? []), message.body]);
    for (const group of ["g0", "g1", "g2"]) expect(byGroup.get(group)).toEqual(Array.from({ length: 10 }, (_, n) => `${group}-${n}`));
  });

  it("cancels a move halfway and every message is in one of the two queues", async () => {
    const pair = await pairWithDeadLetters(60);
    await useBroker();
    const id = await startAction("redrive", pair.dlqName, { method: "move-task", maxPerSecond: 10 });
    await waitFor(async () => (await getAction(id)).progress.done > 0, { what: "some progress", timeoutMs: 20_000 });
    await cancelAction(operator, id, null);
    expect((await actionEnded(id)).state).toBe("cancelled");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const inSource = await depth(pair.source.url);
    const inDlq = await depth(pair.dlq.url);
    expect(inSource).toBeGreaterThan(0);
    expect(inDlq).toBeGreaterThan(0);
    expect(inSource + inDlq).toBe(60);
  });

  it("purges once, then answers 409 with the time left", async () => {
    const pair = await pairWithDeadLetters(5);
    await useBroker();
    const action = await actionEnded(await startAction("purge", pair.dlqName, { confirm: pair.dlqName }));
    expect(action.state).toBe("succeeded");
    await waitFor(async () => (await depth(pair.dlq.url)) === 0, { what: "the purge" });
    const refused = await startAction("purge", pair.dlqName, { confirm: pair.dlqName }).catch((error) => error);
    expect(refused).toMatchObject({ code: "conflict", details: { retryAfterSeconds: expect.any(Number) } });
    expect(refused.message).toMatch(/try again in \d+ s/);
  });

  it("loses nothing when the connection is cut halfway through a manual redrive", async () => {
    const total = 80;
    const pair = await pairWithDeadLetters(total);
    const proxy = await startTcpProxy(9324);
    await useBroker(`http://127.0.0.1:${proxy.port}`);
    const id = await startAction("redrive", pair.dlqName, { method: "manual", maxPerSecond: 40, visibilitySeconds: 2 });
    await waitFor(async () => (await getAction(id)).progress.done >= 20, { what: "a quarter moved", timeoutMs: 20_000 });
    await proxy.cut();
    const action = await actionEnded(id);
    expect(action.state).toBe("failed");
    expect(action.error).toMatch(/SQS redrive of .*: /);
    // Messages received but not deleted come back after their 2 s visibility.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const moved = await drain(pair.source.url);
    const left = await drain(pair.dlq.url);
    const bodies = new Set([...moved, ...left].map((message) => message.body));
    expect(bodies.size).toBe(total);
    expect(moved.length + left.length).toBeGreaterThanOrEqual(total);
    await useBroker();
  });

  it("fails clearly when the destination is deleted during a redrive, and the rest stays in the DLQ", async () => {
    const total = 60;
    const pair = await pairWithDeadLetters(total);
    await useBroker();
    const id = await startAction("redrive", pair.dlqName, { method: "manual", maxPerSecond: 30, visibilitySeconds: 1 });
    await waitFor(async () => (await getAction(id)).progress.done >= 10, { what: "some moved", timeoutMs: 20_000 });
    await sqs.send(new DeleteQueueCommand({ QueueUrl: pair.source.url }));
    const action = await actionEnded(id);
    expect(action.state).toBe("failed");
    expect(action.error).toMatch(/a queue no longer exists/);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // What reached the deleted queue went with it; everything else is still in the DLQ.
    expect(await depth(pair.dlq.url)).toBe(total - action.progress.done);
  });

  it("reports an endpoint that refuses connections as unreachable, saying what to check", async () => {
    await stopCollectors();
    await startCollectors(parseConfig({ brokers: [{ name: "sqs", kind: "sqs", endpoint: "http://127.0.0.1:1", accessKeyId: "a", secretAccessKey: "b" }] }, "test"), { persistHistory: false });
    await pollAllNow();
    const [broker] = listBrokers();
    expect(broker.status).toBe("unreachable");
    expect(broker.lastError).toMatch(/^SQS at http:\/\/127\.0\.0\.1:1: not reachable \(.*ECONNREFUSED.*\): check the broker's endpoint and region$/);
  });
});
