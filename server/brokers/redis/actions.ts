// Actions on Redis queues: plain lists (redrive "x:dlq" into "x", purge) and Varal priority
// queues (redrive dead letters, purge, re-prioritise). Every move is a Lua script that
// moves a bounded batch atomically, so a killed connection leaves each message in one place.
import type Redis from "ioredis";
import { z } from "zod";
import type { QueueActionHandler, QueueActionTarget, RunContext } from "../../actions/types";
import { purgeParams, requireTypedName, type PurgeParams } from "../../actions/purge";
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import { previewPayload } from "../preview";
import { createRedisClient } from "./adapter";
import { DEAD_LETTER_SUFFIX } from "./keys";
import { REDIS_DLQ_SUFFIX } from "./parse";
import { MAX_BATCH, PriorityQueue, parsePriority } from "./priority-queue";
import { evalScript } from "./scripts";
import { velocity } from "../../actions/pace";

const SAMPLE = 5;
const CLIENT_TIMEOUT_MS = 10_000;

/** The name an action's connection shows in CLIENT LIST (Redis allows no spaces in it). */
function actionConnectionName(queueName: string): string {
  return `varal-action-${queueName}`.replace(/[^\w:.-]/g, "_").slice(0, 100);
}

async function withClient<T>(target: QueueActionTarget, fn: (client: Redis) => Promise<T>): Promise<T> {
  const config = target.broker as BrokerConfigOf<"redis">;
  const client = createRedisClient(config.url, CLIENT_TIMEOUT_MS, actionConnectionName(target.queue.name));
  client.on("error", () => undefined);
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

function batchFor(maxPerSecond: number | undefined): number {
  return maxPerSecond ? Math.max(1, Math.min(MAX_BATCH, Math.floor(maxPerSecond / 10))) : MAX_BATCH;
}

/** The priority queue behind a Varal queue name: "orders" or its dead letters "orders:dlq". */
function priorityTarget(target: QueueActionTarget): { queueName: string; deadLetters: boolean } {
  const deadLetters = target.queue.facts.deadLetterOf !== undefined;
  return { queueName: deadLetters ? String(target.queue.facts.deadLetterOf) : target.queue.name, deadLetters };
}

function unsupported(target: QueueActionTarget, what: string): VaralError {
  return new VaralError("invalid_input", `${target.queue.id} is a Redis ${target.queue.type}: Varal cannot ${what} it.`);
}

// ---- redrive ---------------------------------------------------------------------------

const redriveParams = z.object({
  limit: z.number().int().positive().optional(),
  maxPerSecond: z.number().positive().optional(),
  destination: z.string().min(1).optional(),
  /** Priority queues: only dead letters whose payload or last error contains this text. */
  contains: z.string().min(1).max(1000).optional(),
});
type RedriveParams = z.infer<typeof redriveParams>;

function listDestination(target: QueueActionTarget, params: RedriveParams): string {
  if (params.destination) return params.destination;
  const name = target.queue.name;
  if (!name.endsWith(REDIS_DLQ_SUFFIX) || name.length === REDIS_DLQ_SUFFIX.length) {
    throw new VaralError("invalid_input", `${target.queue.id} is not named <queue>${REDIS_DLQ_SUFFIX}, so its source is unknown: give params.destination.`);
  }
  return name.slice(0, -REDIS_DLQ_SUFFIX.length);
}

async function listSamples(client: Redis, key: string) {
  const items = await client.lrangeBuffer(key, -SAMPLE, -1);
  return items.reverse().map((item) => previewPayload(item, 512));
}

async function priorityDeadSamples(queue: PriorityQueue) {
  return (await queue.peek("dead", 0, SAMPLE)).map((message) => ({
    id: message.id,
    lastError: message.meta.lastError ?? null,
    payload: message.payload ? previewPayload(message.payload, 512) : null,
  }));
}

async function redriveList({ queue, broker, params, signal, progress }: RunContext<RedriveParams>) {
  const destination = listDestination({ queue, broker }, params);
  return withClient({ queue, broker }, async (client) => {
    const total = Math.min(await client.llen(queue.name), params.limit ?? Number.MAX_SAFE_INTEGER);
    const pace = velocity(params.maxPerSecond, signal);
    let moved = 0;
    await progress(0, total);
    while (moved < total) {
      if (signal.aborted) throw signal.reason;
      const batch = Math.min(batchFor(params.maxPerSecond), total - moved);
      const count = await evalScript<number>(client, "redriveList", [queue.name, destination], [batch]);
      if (count < 0) throw new VaralError("conflict", `${queue.name} or ${destination} is not a list.`);
      moved += count;
      await progress(moved, total);
      if (count < batch) break;
      await pace(count);
    }
    return { moved, destination };
  });
}

async function redrivePriority({ queue, broker, params, signal, progress }: RunContext<RedriveParams>) {
  const { queueName } = priorityTarget({ queue, broker });
  return withClient({ queue, broker }, async (client) => {
    const pq = new PriorityQueue(client, queueName);
    const limit = params.limit ?? Number.MAX_SAFE_INTEGER;
    const total = params.contains ? null : Math.min(limit, await client.zcard(pq.keys.dead));
    const pace = velocity(params.maxPerSecond, signal);
    let moved = 0;
    let cursor = "";
    await progress(0, total);
    do {
      if (signal.aborted) throw signal.reason;
      const step = await pq.redrive(Math.min(batchFor(params.maxPerSecond), limit - moved), params.contains ?? "", cursor);
      moved += step.moved;
      cursor = step.cursor;
      await progress(moved, total);
      if (!params.contains && step.moved === 0) break;
      await pace(step.moved);
    } while (moved < limit && (params.contains ? cursor !== "" : true));
    return { moved, destination: queueName };
  });
}

export const redrive: QueueActionHandler<RedriveParams> = {
  kind: "redrive",
  brokerKind: "redis",
  params: redriveParams,
  appliesTo: (queue) =>
    (queue.type === "list" && queue.name.endsWith(REDIS_DLQ_SUFFIX)) || (queue.type === "priority" && queue.facts.deadLetterOf !== undefined),
  check(target, params) {
    if (target.queue.type === "list") {
      listDestination(target, params);
      if (params.contains) throw new VaralError("invalid_input", "params.contains filters priority queues only; a list is redriven in order.");
    } else if (target.queue.type === "priority") {
      if (!priorityTarget(target).deadLetters) {
        throw new VaralError("invalid_input", `${target.queue.id} is a queue, not its dead letters: redrive ${target.queue.id}${DEAD_LETTER_SUFFIX}.`);
      }
      if (params.destination) throw new VaralError("invalid_input", "Dead letters of a priority queue go back to their own queue: leave out params.destination.");
    } else {
      throw unsupported(target, "redrive");
    }
  },
  async dryRun(target, params) {
    return withClient(target, async (client) => {
      if (target.queue.type === "list") {
        const destination = listDestination(target, params);
        const length = await client.llen(target.queue.name);
        const destinationType = await client.type(destination);
        const warnings: string[] = [];
        if (destinationType !== "list" && destinationType !== "none") warnings.push(`${destination} is a ${destinationType}, not a list: the redrive would be refused.`);
        if (destinationType === "none") warnings.push(`${destination} does not exist yet: it will be created.`);
        return { wouldAffect: Math.min(length, params.limit ?? length), sample: await listSamples(client, target.queue.name), warnings };
      }
      const pq = new PriorityQueue(client, priorityTarget(target).queueName);
      const dead = await client.zcard(pq.keys.dead);
      return {
        wouldAffect: params.contains ? null : Math.min(dead, params.limit ?? dead),
        sample: await priorityDeadSamples(pq),
        warnings: params.contains ? [`Only dead letters whose payload or last error contains "${params.contains}" move; how many is known once scanned.`] : [],
      };
    });
  },
  run(context) {
    return context.queue.type === "list" ? redriveList(context) : redrivePriority(context);
  },
};

// ---- purge -----------------------------------------------------------------------------

/** What a purge would take now, and what an interrupted one left out of line, in one read. */
async function purgeSizes(pq: PriorityQueue, deadLetters: boolean): Promise<{ toTake: number; leftover: number }> {
  const stats = await pq.stats(1);
  return deadLetters ? { toTake: stats.dead, leftover: stats.purgingDead } : { toTake: stats.waiting + stats.delayed, leftover: stats.purging };
}

export const purge: QueueActionHandler<PurgeParams> = {
  kind: "purge",
  brokerKind: "redis",
  params: purgeParams,
  appliesTo: (queue) => queue.type === "list" || queue.type === "priority",
  check(target, params, mode) {
    if (target.queue.type !== "list" && target.queue.type !== "priority") throw unsupported(target, "purge");
    requireTypedName(target, params, mode);
  },
  async dryRun(target) {
    return withClient(target, async (client) => {
      const warnings = ["Purged messages cannot be recovered. Messages enqueued after the purge starts are kept."];
      if (target.queue.type === "list") {
        return { wouldAffect: await client.llen(target.queue.name), sample: await listSamples(client, target.queue.name), warnings };
      }
      const { queueName, deadLetters } = priorityTarget(target);
      const pq = new PriorityQueue(client, queueName);
      const { toTake, leftover } = await purgeSizes(pq, deadLetters);
      if (leftover > 0) warnings.push(`An interrupted purge left ${leftover} message(s) out of line: they are deleted first.`);
      if (deadLetters) return { wouldAffect: toTake, sample: await priorityDeadSamples(pq), warnings };
      const sample = (await pq.peek("wait", 0, SAMPLE)).map((message) => ({
        id: message.id,
        priority: message.priority,
        payload: message.payload ? previewPayload(message.payload, 512) : null,
      }));
      return { wouldAffect: toTake, sample, warnings: [...warnings, "Messages being processed right now are not purged."] };
    });
  },
  async run({ queue, broker, signal, progress }) {
    return withClient({ queue, broker }, async (client) => {
      if (queue.type === "list") {
        // At one instant: exactly what the list held then, however fast others push and pop.
        const purged = await evalScript<number>(client, "purgeList", [queue.name], []);
        if (purged < 0) throw new VaralError("invalid_input", `${queue.name} is no longer a list: nothing was purged.`);
        await progress(purged, purged);
        return { purged };
      }
      const { queueName, deadLetters } = priorityTarget({ queue, broker });
      const pq = new PriorityQueue(client, queueName);
      const { toTake: total } = await purgeSizes(pq, deadLetters);
      if (signal.aborted) throw signal.reason;
      await progress(0, total);
      // Once taken out of line the messages are deleted to the end: a cancel would only
      // strand them where no consumer sees them. Progress stops being written after a cancel.
      const { purged, resumed } = await pq.purge(deadLetters ? ["dead"] : ["wait", "delayed"], (deleted) => progress(deleted, Math.max(total, deleted)).catch(() => undefined));
      return resumed > 0 ? { purged, resumedInterruptedPurge: resumed } : { purged };
    });
  },
};

// ---- re-prioritise ---------------------------------------------------------------------

const reprioritiseParams = z
  .object({
    messageIds: z.array(z.string().min(1)).min(1).max(1000).optional(),
    filter: z.object({ priority: z.number().int().optional(), contains: z.string().min(1).max(1000).optional() }).optional(),
    priority: z.number(),
    /** By filter: waiting messages scanned per second at most, so a large queue's scan shares Redis. */
    maxPerSecond: z.number().positive().optional(),
  })
  .refine((params) => (params.messageIds === undefined) !== (params.filter === undefined), "give either messageIds or filter");
type ReprioritiseParams = z.infer<typeof reprioritiseParams>;

export const reprioritise: QueueActionHandler<ReprioritiseParams> = {
  kind: "reprioritise",
  brokerKind: "redis",
  params: reprioritiseParams,
  appliesTo: (queue) => queue.type === "priority" && queue.facts.deadLetterOf === undefined,
  check(target, params) {
    if (target.queue.type !== "priority" || priorityTarget(target).deadLetters) throw unsupported(target, "re-prioritise");
    parsePriority(params.priority);
    if (params.filter?.priority !== undefined) parsePriority(params.filter.priority);
  },
  async dryRun(target, params) {
    return withClient(target, async (client) => {
      const pq = new PriorityQueue(client, target.queue.name);
      if (params.messageIds) {
        const scores = await client.hmget(pq.keys.data, ...params.messageIds.map((id) => `s:${id}`));
        const missing = params.messageIds.filter((_, index) => scores[index] === null);
        return {
          wouldAffect: params.messageIds.length - missing.length,
          sample: params.messageIds.slice(0, SAMPLE),
          warnings: missing.length ? [`Not in this queue: ${missing.slice(0, 10).join(", ")}.`] : [],
        };
      }
      const band = params.filter?.priority;
      const wouldAffect = band === undefined || params.filter?.contains ? null : await client.zcount(pq.keys.wait, band * 2 ** 43, (band + 1) * 2 ** 43 - 1);
      return {
        wouldAffect,
        sample: [],
        warnings: wouldAffect === null ? ["How many waiting messages match is known once scanned."] : [],
      };
    });
  },
  async run({ queue, broker, params, signal, progress }) {
    return withClient({ queue, broker }, async (client) => {
      const pq = new PriorityQueue(client, queue.name);
      let changed = 0;
      if (params.messageIds) {
        const failures: string[] = [];
        await progress(0, params.messageIds.length);
        for (const [index, id] of params.messageIds.entries()) {
          if (signal.aborted) throw signal.reason;
          try {
            await pq.reprioritise(id, params.priority);
            changed++;
          } catch (error) {
            failures.push(`${id}: ${(error as Error).message}`);
          }
          await progress(index + 1, params.messageIds.length);
        }
        return { changed, failures };
      }
      const pace = velocity(params.maxPerSecond, signal);
      let cursor = "";
      let scanned = 0;
      await progress(0, null);
      do {
        if (signal.aborted) throw signal.reason;
        const step = await pq.reprioritiseMatching(params.filter ?? {}, params.priority, cursor, batchFor(params.maxPerSecond));
        cursor = step.cursor;
        changed += step.changed;
        scanned += step.scanned;
        await progress(changed, null);
        await pace(step.scanned);
      } while (cursor !== "");
      return { changed, scanned };
    });
  },
};

export const redisHandlers = [redrive, purge, reprioritise] as QueueActionHandler<never>[];
