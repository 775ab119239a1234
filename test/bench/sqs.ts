// SQS benchmark on the local ElasticMQ: one poll over 1,000 queues, and a redrive of
// 10,000 dead letters by SQS's move task and by Varal's manual path, side by side.
import crypto from "node:crypto";
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  SendMessageBatchCommand,
  StartMessageMoveTaskCommand,
  ListMessageMoveTasksCommand,
} from "@aws-sdk/client-sqs";
import { SqsAdapter } from "../../server/brokers/sqs/adapter";
import { moveMessages } from "../../server/brokers/sqs/move";
import { mapBounded } from "../../server/brokers/types";
import { parseConfig } from "../../server/config/load";
import type { BrokerConfigOf } from "../../server/config/schema";
import { median, printTable, writeResults } from "./stats";

const ENDPOINT = "http://127.0.0.1:9324";
const QUEUES = Number(process.env.BENCH_SQS_QUEUES ?? 1000);
const MESSAGES = Number(process.env.BENCH_SQS_MESSAGES ?? 10_000);

const sqs = new SQSClient({ region: "us-east-1", endpoint: ENDPOINT, credentials: { accessKeyId: "local", secretAccessKey: "local" } });

async function attributes(url: string): Promise<Record<string, string>> {
  return (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }))).Attributes ?? {};
}

async function depth(url: string): Promise<number> {
  const all = await attributes(url);
  return Number(all.ApproximateNumberOfMessages) + Number(all.ApproximateNumberOfMessagesNotVisible);
}

/** A source and its DLQ holding `count` dead letters, put there by SQS itself. */
async function deadLetters(name: string, count: number) {
  const dlq = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
  const dlqArn = (await attributes(dlq)).QueueArn;
  const source = (await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) } }))).QueueUrl!;
  await mapBounded(Array.from({ length: count / 10 }, (_, i) => i), 16, (batch) =>
    sqs.send(new SendMessageBatchCommand({ QueueUrl: source, Entries: Array.from({ length: 10 }, (_, i) => ({ Id: String(i), MessageBody: `m-${batch * 10 + i}` })) })),
  );
  while ((await depth(dlq)) < count) {
    await mapBounded(Array.from({ length: 32 }, () => 0), 16, () => sqs.send(new ReceiveMessageCommand({ QueueUrl: source, MaxNumberOfMessages: 10, VisibilityTimeout: 0 })));
  }
  return { source, dlq, dlqArn: dlqArn! };
}

export async function runSqsBenchmark(): Promise<void> {
  const run = crypto.randomBytes(3).toString("hex");
  const prefix = `bench-${run}-`;
  const urls: string[] = [];
  try {
    console.log(`sqs benchmark on ElasticMQ: poll over ${QUEUES} queues, redrive of ${MESSAGES} dead letters\n`);
    urls.push(...(await mapBounded(Array.from({ length: QUEUES }, (_, i) => i), 16, async (i) => (await sqs.send(new CreateQueueCommand({ QueueName: `${prefix}q${i}` }))).QueueUrl!)));
    const config = parseConfig({ brokers: [{ name: "sqs", kind: "sqs", endpoint: ENDPOINT, accessKeyId: "l", secretAccessKey: "l", queueNamePrefix: prefix }] }, "bench").brokers[0];
    const pollTimes: number[] = [];
    let calls = 0;
    let seen = 0;
    for (let round = 0; round < 3; round++) {
      calls = 0;
      const adapter = new SqsAdapter(config as BrokerConfigOf<"sqs">, { countCalls: (n = 1) => void (calls += n) }, 30_000);
      const started = performance.now();
      seen = (await adapter.poll(new AbortController().signal)).queues.length;
      pollTimes.push(performance.now() - started);
      await adapter.close();
    }
    console.log(`poll: ${seen} queues in ${median(pollTimes).toFixed(0)} ms (median of 3), ${calls} calls, 16 at a time\n`);

    const byTask = await deadLetters(`${prefix}task`, MESSAGES);
    const taskStarted = performance.now();
    // No rate, as Varal starts it when the operator sets none (SQS then picks its own).
    // ElasticMQ spaces a rate-limited task's moves on its scheduler, whose ticks are about
    // 10 ms long, so any rate runs at a few dozen messages per second there.
    const task = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: byTask.dlqArn }));
    while ((await depth(byTask.source)) < MESSAGES) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const tasks = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: byTask.dlqArn }));
      const status = tasks.Results?.find((entry) => entry.TaskHandle === task.TaskHandle)?.Status;
      if (status === "FAILED") throw new Error("move task failed");
    }
    const taskSeconds = (performance.now() - taskStarted) / 1000;
    const taskConserved = (await depth(byTask.source)) + (await depth(byTask.dlq));

    const byHand = await deadLetters(`${prefix}manual`, MESSAGES);
    const manualStarted = performance.now();
    const manual = await moveMessages(sqs, {
      sourceUrl: byHand.dlq,
      destinationUrl: byHand.source,
      destinationFifo: false,
      limit: MESSAGES,
      signal: new AbortController().signal,
      onProgress: async () => undefined,
    });
    const manualSeconds = (performance.now() - manualStarted) / 1000;
    const conserved = (await depth(byHand.source)) + (await depth(byHand.dlq));
    printTable([
      { redrive: "SQS move task (no rate given)", messages: MESSAGES, seconds: taskSeconds.toFixed(1), "msg/s": Math.round(MESSAGES / taskSeconds) },
      { redrive: "manual: receive, send, delete", messages: manual.moved, seconds: manualSeconds.toFixed(1), "msg/s": Math.round(manual.moved / manualSeconds) },
    ]);
    console.log(`\nmessages in source + DLQ afterwards: move task ${taskConserved} of ${MESSAGES}, manual path ${conserved} of ${MESSAGES}`);
    urls.push(byTask.source, byTask.dlq, byHand.source, byHand.dlq);
    console.log(
      `results: ${writeResults("sqs", {
        poll: { queues: seen, medianMs: median(pollTimes), calls },
        redrive: {
          moveTask: { messages: MESSAGES, seconds: taskSeconds, perSecond: MESSAGES / taskSeconds, conserved: taskConserved },
          manual: { messages: manual.moved, seconds: manualSeconds, perSecond: manual.moved / manualSeconds, conserved },
        },
      })}`,
    );
  } finally {
    await mapBounded(urls, 16, (url) => sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined));
    sqs.destroy();
  }
}
