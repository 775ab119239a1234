// Redis: discovers queue-shaped keys with SCAN (never KEYS) and reads them with pipelines.
import Redis from "ioredis";
import type { BrokerConfigOf } from "../../config/schema";
import { abortable, type AdapterContext, type BrokerAdapter, type QueueObservation } from "../types";
import { listObservations, type ScannedKey } from "./parse";

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
    // Kept to explain the next failed poll; the event itself would only be noise.
    this.client.on("error", (error: Error) => (this.lastConnectionError = error));
    this.client.on("ready", () => (this.lastConnectionError = null));
  }

  async poll(signal: AbortSignal): Promise<QueueObservation[]> {
    try {
      if (this.client.status === "wait") await abortable(this.client.connect(), signal);
      const keys = await abortable(this.scanKeys(signal), signal);
      const typed = await abortable(this.readTypesAndLengths(keys), signal);
      return listObservations(typed);
    } catch (error) {
      if (signal.aborted || this.client.status === "ready") throw error;
      const cause = this.lastConnectionError?.message ?? (error as Error).message;
      throw new Error(`Redis at ${redactUrl(this.config.url)} is not reachable (${cause}): check brokers.${this.config.name}.url and that Redis is running`);
    }
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

  private async readTypesAndLengths(keys: string[]): Promise<ScannedKey[]> {
    if (keys.length === 0) return [];
    const types = await this.client.pipeline(keys.map((key) => ["type", key])).exec();
    this.context.countCalls(keys.length);
    const scanned = keys.map((key, index) => ({ key, type: String(types?.[index]?.[1] ?? "none"), length: null as number | null }));
    const lists = scanned.filter((entry) => entry.type === "list");
    if (lists.length > 0) {
      const lengths = await this.client.pipeline(lists.map((entry) => ["llen", entry.key])).exec();
      this.context.countCalls(lists.length);
      lists.forEach((entry, index) => {
        const value = lengths?.[index]?.[1];
        entry.length = typeof value === "number" ? value : null;
      });
    }
    return scanned;
  }

  async close(): Promise<void> {
    this.client.disconnect();
  }
}
