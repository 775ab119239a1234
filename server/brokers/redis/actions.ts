// Actions on plain Redis lists: redrive a ":dlq" list into its source, and purge.
// Every move is a Lua script that moves a bounded batch atomically.
import { z } from "zod";
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import type { QueueActionHandler, QueueActionTarget } from "../../actions/types";
import { previewPayload } from "../preview";
import { createRedisClient } from "./adapter";
import { REDIS_DLQ_SUFFIX } from "./parse";
import { runScript } from "./scripts";

const BATCH = 1_000;
const SAMPLE = 5;
const CLIENT_TIMEOUT_MS = 10_000;

async function withClient<T>(target: QueueActionTarget, fn: (client: ReturnType<typeof createRedisClient>) => Promise<T>): Promise<T> {
  const config = target.broker as BrokerConfigOf<"redis">;
  const client = createRedisClient(config.url, CLIENT_TIMEOUT_MS, `varal-action-${target.queue.name}`.replace(/[^\w:.-]/g, "_").slice(0, 100));
  client.on("error", () => undefined);
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

function requireList(target: QueueActionTarget): void {
  if (target.queue.type !== "list") {
    throw new VaralError("invalid_input", `${target.queue.id} is a ${target.queue.type}, not a list.`);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const redriveParams = z.object({
  limit: z.number().int().positive().optional(),
  maxPerSecond: z.number().positive().optional(),
  destination: z.string().min(1).optional(),
});
type RedriveParams = z.infer<typeof redriveParams>;

function redriveDestination(target: QueueActionTarget, params: RedriveParams): string {
  if (params.destination) return params.destination;
  const name = target.queue.name;
  if (!name.endsWith(REDIS_DLQ_SUFFIX) || name.length === REDIS_DLQ_SUFFIX.length) {
    throw new VaralError(
      "invalid_input",
      `${target.queue.id} is not named <queue>${REDIS_DLQ_SUFFIX}, so its source is unknown: give params.destination.`,
    );
  }
  return name.slice(0, -REDIS_DLQ_SUFFIX.length);
}

async function samples(client: ReturnType<typeof createRedisClient>, key: string) {
  const items = await client.lrangeBuffer(key, -SAMPLE, -1);
  return items.reverse().map((item) => previewPayload(item, 512));
}

export const redriveList: QueueActionHandler<RedriveParams> = {
  kind: "redrive",
  brokerKind: "redis",
  params: redriveParams,
  check(target, params) {
    requireList(target);
    redriveDestination(target, params);
  },
  async dryRun(target, params) {
    const destination = redriveDestination(target, params);
    return withClient(target, async (client) => {
      const length = await client.llen(target.queue.name);
      const destinationType = await client.type(destination);
      const warnings: string[] = [];
      if (destinationType !== "list" && destinationType !== "none") {
        warnings.push(`${destination} is a ${destinationType}, not a list: the redrive would be refused.`);
      }
      if (destinationType === "none") warnings.push(`${destination} does not exist yet: it will be created.`);
      return { wouldAffect: Math.min(length, params.limit ?? length), sample: await samples(client, target.queue.name), warnings };
    });
  },
  async run({ queue, broker, params, signal, progress }) {
    const destination = redriveDestination({ queue, broker }, params);
    return withClient({ queue, broker }, async (client) => {
      const total = Math.min(await client.llen(queue.name), params.limit ?? Number.MAX_SAFE_INTEGER);
      let moved = 0;
      await progress(0, total);
      while (moved < total) {
        if (signal.aborted) throw signal.reason;
        const batch = Math.min(BATCH, total - moved, params.maxPerSecond ? Math.max(1, Math.floor(params.maxPerSecond)) : BATCH);
        const started = Date.now();
        const count = await runScript(client, "redriveList", [queue.name, destination], [batch]);
        moved += count;
        await progress(moved, total);
        if (count < batch) break;
        if (params.maxPerSecond) await sleep(Math.max(0, (count / params.maxPerSecond) * 1000 - (Date.now() - started)), signal);
      }
      return { moved, destination };
    });
  },
};

const purgeParams = z.object({ confirm: z.string().optional() });
type PurgeParams = z.infer<typeof purgeParams>;

export const purgeList: QueueActionHandler<PurgeParams> = {
  kind: "purge",
  brokerKind: "redis",
  params: purgeParams,
  check(target, params, mode) {
    requireList(target);
    if (mode === "run" && params.confirm !== target.queue.name) {
      throw new VaralError("invalid_input", `To purge, type the queue's name exactly: params.confirm must be "${target.queue.name}".`);
    }
  },
  async dryRun(target) {
    return withClient(target, async (client) => ({
      wouldAffect: await client.llen(target.queue.name),
      sample: await samples(client, target.queue.name),
      warnings: ["Purged messages cannot be recovered. Messages enqueued after the purge starts are kept."],
    }));
  },
  async run({ queue, broker, signal, progress }) {
    return withClient({ queue, broker }, async (client) => {
      // Only what was there when the purge started: newer messages sit at the other end.
      const total = await client.llen(queue.name);
      let dropped = 0;
      await progress(0, total);
      while (dropped < total) {
        if (signal.aborted) throw signal.reason;
        const count = await runScript(client, "purgeList", [queue.name], [Math.min(BATCH * 10, total - dropped)]);
        if (count === 0) break;
        dropped += count;
        await progress(dropped, total);
      }
      return { purged: dropped };
    });
  },
};

export const redisListHandlers = [redriveList, purgeList] as QueueActionHandler<never>[];
