// Actions on SQS queues. Redrive uses StartMessageMoveTask where the endpoint has it (AWS,
// ElasticMQ 1.6+), and otherwise, or to move only the first N, the manual path of move.ts.
// Purge is PurgeQueue, once per 60 seconds per queue.
import {
  CancelMessageMoveTaskCommand,
  ListMessageMoveTasksCommand,
  PurgeQueueCommand,
  StartMessageMoveTaskCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { z } from "zod";
import type { QueueActionHandler, QueueActionTarget, RunContext } from "../../actions/types";
import { purgeParams, requireTypedName, type PurgeParams } from "../../actions/purge";
import { collectorState } from "../../collect/state";
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import { createSqsClient, describeSqsError } from "./adapter";
import { purgeCooldownSeconds, recordPurge } from "./cooldown";
import { moveMessages } from "./move";

const MOVE_TASK_MAX_PER_SECOND = 500;
const TASK_POLL_MS = 500;

function clientFor(target: QueueActionTarget): SQSClient {
  return createSqsClient(target.broker as BrokerConfigOf<"sqs">, 20_000);
}

interface SqsQueueRef {
  name: string;
  url: string;
  arn: string | null;
  fifo: boolean;
}

function refOf(target: QueueActionTarget, name: string): SqsQueueRef {
  const snapshot = collectorState().brokers.get(target.broker.name)?.byName.get(name);
  if (!snapshot) throw new VaralError("not_found", `No SQS queue "${name}" on broker ${target.broker.name}: see GET /api/queues.`);
  return { name, url: String(snapshot.facts.url), arn: (snapshot.facts.arn as string | null) ?? null, fifo: snapshot.facts.fifo === true };
}

/** Queues whose RedrivePolicy names this one as their dead-letter queue. */
function sourcesOf(target: QueueActionTarget): string[] {
  const state = collectorState().brokers.get(target.broker.name);
  return (state?.snapshots ?? []).filter((queue) => queue.dlq?.id === target.queue.id).map((queue) => queue.name);
}

const redriveParams = z.object({
  limit: z.number().int().positive().optional(),
  maxPerSecond: z.number().positive().optional(),
  destination: z.string().min(1).max(80).optional(),
  /** auto: a move task where the endpoint has one, else the manual path. */
  method: z.enum(["auto", "move-task", "manual"]).default("auto"),
  /** Manual path: how long a received message stays hidden while it is being moved. */
  visibilitySeconds: z.number().int().min(1).max(43_200).optional(),
});
type RedriveParams = z.infer<typeof redriveParams>;

function manualDestination(target: QueueActionTarget, params: RedriveParams): string {
  if (params.destination) return params.destination;
  const sources = sourcesOf(target);
  if (sources.length === 1) return sources[0];
  throw new VaralError(
    "invalid_input",
    sources.length === 0
      ? `No queue names ${target.queue.id} in its RedrivePolicy, so where its messages came from is unknown: give params.destination.`
      : `${target.queue.id} is the dead-letter queue of ${sources.join(", ")}: give params.destination to move them by hand.`,
  );
}

function isUnsupported(error: unknown): boolean {
  const text = `${(error as { name?: string }).name ?? ""} ${(error as Error).message ?? ""}`;
  return /UnsupportedOperation|InvalidAction|not supported|Unknown ?Operation|AWS.SimpleQueueService.UnsupportedOperation/i.test(text);
}

async function runMoveTask(client: SQSClient, context: RunContext<RedriveParams>, source: SqsQueueRef): Promise<unknown> {
  const destination = context.params.destination ? refOf(context, context.params.destination) : null;
  const started = await client.send(
    new StartMessageMoveTaskCommand({
      SourceArn: source.arn!,
      DestinationArn: destination?.arn ?? undefined,
      MaxNumberOfMessagesPerSecond: context.params.maxPerSecond ? Math.min(MOVE_TASK_MAX_PER_SECOND, Math.floor(context.params.maxPerSecond)) : undefined,
    }),
  );
  const handle = started.TaskHandle!;
  let moved = 0;
  let total: number | null = null;
  try {
    while (true) {
      if (context.signal.aborted) throw context.signal.reason;
      await new Promise((resolve) => setTimeout(resolve, TASK_POLL_MS));
      const tasks = await client.send(new ListMessageMoveTasksCommand({ SourceArn: source.arn!, MaxResults: 10 }));
      const task = tasks.Results?.find((entry) => entry.TaskHandle === handle);
      // Some endpoints forget a task once it ends: then it has ended.
      if (!task) break;
      moved = task.ApproximateNumberOfMessagesMoved ?? moved;
      total = task.ApproximateNumberOfMessagesToMove ?? total;
      await context.progress(moved, total);
      if (task.Status === "COMPLETED" || task.Status === "CANCELLED") break;
      if (task.Status === "FAILED") throw new Error(`SQS move task failed: ${task.FailureReason ?? "no reason given"}`);
    }
  } catch (error) {
    if (context.signal.aborted) {
      await client.send(new CancelMessageMoveTaskCommand({ TaskHandle: handle })).catch(() => undefined);
    }
    throw error;
  }
  return { method: "move-task", taskHandle: handle, movedApproximately: moved, destination: destination?.name ?? "original source queues" };
}

export const redrive: QueueActionHandler<RedriveParams> = {
  kind: "redrive",
  brokerKind: "sqs",
  params: redriveParams,
  appliesTo: (queue) => collectorState().brokers.get(queue.broker)?.snapshots.some((other) => other.dlq?.id === queue.id) ?? false,
  check(target, params) {
    if (params.destination) refOf(target, params.destination);
    if (params.method === "move-task" && params.limit) throw new VaralError("invalid_input", "A move task moves every message: leave out params.limit, or use method manual.");
    if (params.method === "move-task" && (params.maxPerSecond ?? 0) > MOVE_TASK_MAX_PER_SECOND) {
      throw new VaralError("invalid_input", `A move task moves at most ${MOVE_TASK_MAX_PER_SECOND} messages per second.`);
    }
    if (params.method === "manual" || params.limit) manualDestination(target, params);
  },
  async dryRun(target, params) {
    const usesTask = params.method !== "manual" && !params.limit;
    const depth = target.queue.depth ?? 0;
    const warnings = ["SQS counts are approximate and can take about a minute to settle."];
    if (usesTask) warnings.push("Moved by an SQS message move task, at most 500 messages per second, to each message's original source queue unless a destination is given.");
    else warnings.push(`Moved by hand to ${manualDestination(target, params)}: received, sent, then deleted from ${target.queue.name}; a crash can duplicate a message (the copy carries its original id), never lose one.`);
    return { wouldAffect: params.limit ? Math.min(params.limit, depth) : depth, sample: [], warnings };
  },
  async run(context) {
    const client = clientFor(context);
    try {
      const source = refOf(context, context.queue.name);
      const manual = context.params.method === "manual" || !!context.params.limit || !source.arn;
      if (!manual) {
        try {
          return await runMoveTask(client, context, source);
        } catch (error) {
          if (context.params.method === "move-task" || !isUnsupported(error)) throw error;
        }
      }
      const destination = refOf(context, manualDestination(context, context.params));
      const total = Math.min(context.params.limit ?? Number.MAX_SAFE_INTEGER, context.queue.depth ?? 0);
      await context.progress(0, total);
      const result = await moveMessages(client, {
        sourceUrl: source.url,
        destinationUrl: destination.url,
        destinationFifo: destination.fifo,
        limit: context.params.limit ?? Number.MAX_SAFE_INTEGER,
        maxPerSecond: context.params.maxPerSecond,
        signal: context.signal,
        onProgress: (moved) => context.progress(moved, Math.max(total, moved)),
        visibilitySeconds: context.params.visibilitySeconds,
      });
      return { method: "manual", destination: destination.name, ...result };
    } catch (error) {
      if (context.signal.aborted) throw error;
      throw new Error(`SQS redrive of ${context.queue.name}: ${describeSqsError(error)}`);
    } finally {
      client.destroy();
    }
  },
};


function cooldownError(target: QueueActionTarget, seconds: number): VaralError {
  return new VaralError(
    "conflict",
    `${target.queue.id} was purged less than 60 seconds ago and SQS allows one purge per 60 seconds: try again in ${seconds} s.`,
    { retryAfterSeconds: seconds },
    { "Retry-After": String(seconds) },
  );
}

export const purge: QueueActionHandler<PurgeParams> = {
  kind: "purge",
  brokerKind: "sqs",
  params: purgeParams,
  check(target, params, mode) {
    const cooldown = purgeCooldownSeconds(target.queue.id);
    if (cooldown > 0) throw cooldownError(target, cooldown);
    requireTypedName(target, params, mode);
  },
  async dryRun(target) {
    return {
      wouldAffect: (target.queue.depth ?? 0) + (target.queue.inflight ?? 0) + (target.queue.delayed ?? 0),
      sample: [],
      warnings: [
        "PurgeQueue deletes every message, in flight and delayed included, and cannot be undone; SQS takes up to 60 seconds to finish it.",
        "SQS allows one purge per queue every 60 seconds.",
      ],
    };
  },
  async run({ queue, broker, progress }) {
    const client = createSqsClient(broker as BrokerConfigOf<"sqs">, 20_000);
    try {
      recordPurge(queue.id);
      await client.send(new PurgeQueueCommand({ QueueUrl: String(queue.facts.url) }));
      const total = (queue.depth ?? 0) + (queue.inflight ?? 0) + (queue.delayed ?? 0);
      await progress(total, total);
      return { purgedApproximately: total };
    } catch (error) {
      if ((error as { name?: string }).name === "PurgeQueueInProgress") throw cooldownError({ queue, broker }, 60);
      throw new Error(`SQS purge of ${queue.name}: ${describeSqsError(error)}`);
    } finally {
      client.destroy();
    }
  },
};

export const sqsHandlers = [redrive, purge] as QueueActionHandler<never>[];
