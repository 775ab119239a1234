// Redis: discovers queue-shaped keys with SCAN (never KEYS) and reads them in three
// pipelined round trips, whatever the number of queues.
import Redis from "ioredis";
import type { BrokerConfigOf } from "../../config/schema";
import { abortable, type AdapterContext, type BrokerAdapter, type PollResult, type QueueObservation } from "../types";
import { priorityQueueKeys } from "./keys";
import {
  bullObservations,
  classifyKeys,
  listObservations,
  parseInfo,
  parseStreamGroups,
  priorityObservations,
  redisHealth,
  streamGroupObservation,
  type ScannedKey,
} from "./parse";
import { parseStats, statsScriptKeys } from "./priority-queue";
import { defineScripts, pipelineScript } from "./scripts";

const SCAN_COUNT = 1000;
/** A keyspace larger than this is not a queue server Varal should walk every poll. */
const MAX_SCANNED_KEYS = 200_000;

/** connectionName shows in CLIENT LIST, so an operator can tell Varal's connections apart. */
export function createRedisClient(url: string, timeoutMs: number, connectionName = "varal-collector"): Redis {
  return new Redis(url, {
    connectionName,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
  });
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(invalid URL)";
  }
}

export class RedisAdapter implements BrokerAdapter {
  readonly kind = "redis" as const;
  private readonly client: Redis;
  private lastConnectionError: Error | null = null;

  constructor(
    private readonly config: BrokerConfigOf<"redis">,
    private readonly context: AdapterContext,
    timeoutMs: number,
  ) {
    this.client = createRedisClient(config.url, timeoutMs);
    defineScripts(this.client);
    // Kept to explain the next failed poll; the event itself would only be noise.
    this.client.on("error", (error: Error) => (this.lastConnectionError = error));
    this.client.on("ready", () => (this.lastConnectionError = null));
  }

  async poll(signal: AbortSignal): Promise<PollResult> {
    try {
      if (this.client.status === "wait") await abortable(this.client.connect(), signal);
      return await abortable(this.read(signal), signal);
    } catch (error) {
      if (signal.aborted || this.client.status === "ready") throw error;
      const cause = this.lastConnectionError?.message ?? (error as Error).message;
      throw new Error(`Redis at ${redactUrl(this.config.url)} is not reachable (${cause}): check brokers.${this.config.name}.url and that Redis is running`);
    }
  }

  private async read(signal: AbortSignal): Promise<PollResult> {
    const keys = await this.scanKeys(signal);
    const classes = classifyKeys(keys);
    const now = Date.now();

    // Round trip 1: types of unknown keys, and the server's own health.
    const first = this.client.pipeline();
    for (const key of classes.others) first.type(key);
    first.info("memory");
    first.info("persistence");
    first.info("server");
    first.config("GET", "save");
    const firstReplies = await exec(first);
    this.context.countCalls(classes.others.length + 4);
    const types = classes.others.map((key, index) => ({ key, type: String(firstReplies[index][1] ?? "none") }));
    const [memory, persistence, server, save] = firstReplies.slice(classes.others.length);
    const info = parseInfo(`${memory[1] ?? ""}\n${persistence[1] ?? ""}\n${server[1] ?? ""}`);
    // CONFIG may be renamed away on managed Redis: then persistence is judged on AOF alone.
    const saveConfig = save[0] ? null : String((save[1] as string[])[1] ?? "");

    // Round trip 2: the figures of every queue.
    const lists = types.filter((entry) => entry.type === "list").map((entry) => entry.key);
    const streams = types.filter((entry) => entry.type === "stream").map((entry) => entry.key);
    const second = this.client.pipeline();
    for (const key of lists) second.llen(key);
    for (const key of streams) {
      second.xinfo("GROUPS", key);
      second.xinfo("STREAM", key);
    }
    for (const name of classes.priorityQueues) {
      pipelineScript(second, "stats", statsScriptKeys(priorityQueueKeys(name)), [16]);
    }
    for (const base of classes.bullQueues) {
      second.llen(`${base}:wait`).llen(`${base}:paused`).llen(`${base}:active`);
      second.zcard(`${base}:delayed`).zcard(`${base}:prioritized`).zcard(`${base}:failed`).zcard(`${base}:completed`);
    }
    const replies = await exec(second);
    this.context.countCalls(replies.length);
    if (signal.aborted) throw signal.reason;

    let at = 0;
    const next = () => replies[at++];
    const scanned: ScannedKey[] = lists.map((key) => {
      const [error, length] = next();
      return { key, type: "list", length: error ? null : Number(length) };
    });
    const streamInfo = streams.map((stream) => {
      const [groupsError, groups] = next();
      const [streamError, streamFields] = next();
      const fields = streamError ? [] : (streamFields as unknown[]);
      const addedIndex = fields.indexOf("entries-added");
      return {
        stream,
        groups: groupsError ? [] : parseStreamGroups(groups as unknown[]),
        entriesAdded: addedIndex >= 0 ? Number(fields[addedIndex + 1]) : null,
      };
    });
    const observations: QueueObservation[] = listObservations(scanned);
    for (const name of classes.priorityQueues) {
      const [error, stats] = next();
      if (!error) observations.push(...priorityObservations(name, parseStats(stats as unknown[]), now));
    }
    for (const base of classes.bullQueues) {
      const counts = ["wait", "paused", "active", "delayed", "prioritized", "failed", "completed"].map(() => {
        const [error, value] = next();
        return error ? 0 : Number(value);
      });
      const [wait, paused, active, delayed, prioritized, failed, completed] = counts;
      observations.push(...bullObservations(base, { wait, paused, active, delayed, prioritized, failed, completed }));
    }

    // Round trip 3: for each stream group, the first entry not yet delivered gives its lag in time.
    const groups = streamInfo.flatMap(({ stream, groups: list, entriesAdded }) => list.map((group) => ({ stream, group, entriesAdded })));
    if (groups.length > 0) {
      const third = this.client.pipeline();
      for (const { stream, group } of groups) third.xrange(stream, `(${group.lastDeliveredId}`, "+", "COUNT", 1);
      const firsts = await exec(third);
      this.context.countCalls(groups.length);
      groups.forEach(({ stream, group, entriesAdded }, index) => {
        const [error, entries] = firsts[index];
        const first = !error && (entries as Array<[string, string[]]>).length > 0 ? (entries as Array<[string, string[]]>)[0][0] : null;
        observations.push(streamGroupObservation(stream, group, entriesAdded, first, now));
      });
    }
    return { queues: observations, health: redisHealth(info, saveConfig) };
  }

  private async scanKeys(signal: AbortSignal): Promise<string[]> {
    const keys: string[] = [];
    let cursor = "0";
    do {
      if (signal.aborted) throw signal.reason;
      const [next, batch] = await this.client.scan(cursor, "MATCH", this.config.keyPattern, "COUNT", SCAN_COUNT);
      this.context.countCalls();
      keys.push(...batch);
      cursor = next;
    } while (cursor !== "0" && keys.length < MAX_SCANNED_KEYS);
    return keys;
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}

async function exec(pipeline: ReturnType<Redis["pipeline"]>): Promise<Array<[Error | null, unknown]>> {
  return ((await pipeline.exec()) ?? []) as Array<[Error | null, unknown]>;
}
