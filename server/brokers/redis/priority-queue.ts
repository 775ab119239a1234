// A reliable priority queue on Redis sorted sets: the TypeScript face of lua/*.lua.
// Lower priority numbers go first; equal priorities are FIFO; a taken message stays in an
// active set until acknowledged, so a consumer that dies loses nothing.
import type Redis from "ioredis";
import { VaralError } from "../../errors";
import { PURGEABLE_SETS, priorityQueueKeys, type PriorityQueueKeys, type PurgeableSet } from "./keys";
import { evalScript } from "./scripts";

export const PRIORITY_MIN = 0;
export const PRIORITY_MAX = 1023;
export const DEFAULT_PRIORITY = 100;
export const DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
export const DEFAULT_IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;
/** Upper bound of one script call's loop, so no call holds Redis for long. */
export const MAX_BATCH = 1000;

export interface EnqueueOptions {
  priority?: number;
  delayMs?: number;
  idempotencyKey?: string;
}

export interface TakenMessage {
  id: string;
  payload: Buffer;
  attempts: number;
  priority: number;
}

export interface StoredMessage {
  id: string;
  /** The score in the set it was read from: waiting score, due time, deadline, or order of death. */
  setScore: number;
  payload: Buffer | null;
  meta: { enqueuedAt?: number; idempotencyKey?: string; lastError?: string; firstFailedAt?: number; lastFailedAt?: number; deadLetteredAt?: number };
  attempts: number;
  priority: number | null;
}

export interface QueueStats {
  waiting: number;
  delayed: number;
  active: number;
  dead: number;
  counters: Record<string, number>;
  bands: Array<{ priority: number; depth: number }>;
  oldestEnqueuedAt: number | null;
  oldestDeadAt: number | null;
  /** Taken out of line by a purge and not deleted yet (from the queue's sets, and from the dead letters). */
  purging: number;
  purgingDead: number;
}

export type QueueSet = "wait" | "delayed" | "active" | "dead";

const SEQUENCE_SPAN = 2 ** 43;

export function priorityOfScore(score: number): number {
  return Math.floor(score / SEQUENCE_SPAN);
}

/** Checks a priority given by a person or a program; the scripts check again. */
export function parsePriority(value: unknown): number {
  const priority = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof priority !== "number" || !Number.isInteger(priority) || priority < PRIORITY_MIN || priority > PRIORITY_MAX) {
    throw new VaralError("invalid_input", `Priority must be a whole number from ${PRIORITY_MIN} (first) to ${PRIORITY_MAX}, got ${JSON.stringify(value)}.`);
  }
  return priority;
}

export class PriorityQueue {
  readonly keys: PriorityQueueKeys;

  constructor(
    readonly client: Redis,
    readonly name: string,
    readonly options: { maxPayloadBytes?: number; idempotencyWindowMs?: number } = {},
  ) {
    if (!name || name.length > 200) throw new VaralError("invalid_input", "A queue name is 1 to 200 characters.");
    this.keys = priorityQueueKeys(name);
  }

  private wrongType(): VaralError {
    return new VaralError("conflict", `A key of queue "${this.name}" holds another kind of value: the name is taken by something that is not a Varal queue.`);
  }

  async enqueue(payload: string | Buffer, options: EnqueueOptions = {}): Promise<{ id: string; duplicate: boolean }> {
    const priority = parsePriority(options.priority ?? DEFAULT_PRIORITY);
    const delayMs = options.delayMs ?? 0;
    if (!Number.isFinite(delayMs) || delayMs < 0) throw new VaralError("invalid_input", `delayMs must be 0 or more, got ${delayMs}.`);
    const maxBytes = this.options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.length;
    if (size > maxBytes) throw new VaralError("payload_too_large", `Payload of ${size} bytes is over this queue's maximum of ${maxBytes}.`);
    const key = options.idempotencyKey ?? "";
    const window = key ? (this.options.idempotencyWindowMs ?? DEFAULT_IDEMPOTENCY_WINDOW_MS) : 0;
    const result = await evalScript<number | [number, string]>(
      this.client,
      "enqueue",
      [this.keys.wait, this.keys.delayed, this.keys.data, this.keys.stats, this.keys.idempotency(key || "-"), this.keys.active],
      [payload, priority, Math.round(delayMs), Date.now(), window, key, maxBytes],
    );
    if (result === -1) throw this.wrongType();
    if (result === -3) throw new VaralError("invalid_input", `Priority ${priority} is out of range.`);
    if (result === -4) throw new VaralError("payload_too_large", `Payload of ${size} bytes is over this queue's maximum of ${maxBytes}.`);
    const [code, id] = result as [number, string];
    return { id: String(id), duplicate: code === -2 };
  }

  /** Enqueues up to 1000 messages in one atomic call; a bad one adds none. */
  async enqueueMany(messages: Array<{ payload: string | Buffer; priority?: number; delayMs?: number }>): Promise<string[]> {
    if (messages.length === 0) return [];
    if (messages.length > MAX_BATCH) throw new VaralError("invalid_input", `At most ${MAX_BATCH} messages per call, got ${messages.length}.`);
    const maxBytes = this.options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    const args: Array<string | number | Buffer> = [Date.now(), maxBytes];
    for (const message of messages) {
      const size = typeof message.payload === "string" ? Buffer.byteLength(message.payload) : message.payload.length;
      if (size > maxBytes) throw new VaralError("payload_too_large", `Payload of ${size} bytes is over this queue's maximum of ${maxBytes}.`);
      args.push(message.payload, parsePriority(message.priority ?? DEFAULT_PRIORITY), Math.max(0, Math.round(message.delayMs ?? 0)));
    }
    const result = await evalScript<number | string[]>(
      this.client,
      "enqueueBatch",
      [this.keys.wait, this.keys.delayed, this.keys.data, this.keys.stats, this.keys.active],
      args,
    );
    if (result === -1) throw this.wrongType();
    if (typeof result === "number") throw new VaralError("invalid_input", `The batch was refused (code ${result}).`);
    return result.map(String);
  }

  async dequeue(count: number, visibilityMs: number): Promise<TakenMessage[]> {
    const flat = await evalScript<Array<Buffer | number>>(
      this.client,
      "dequeue",
      [this.keys.wait, this.keys.delayed, this.keys.active, this.keys.data, this.keys.stats],
      [Date.now(), Math.round(visibilityMs), Math.min(Math.max(1, count), MAX_BATCH), MAX_BATCH],
      { buffers: true },
    );
    const taken: TakenMessage[] = [];
    for (let i = 0; i < flat.length; i += 4) {
      taken.push({
        id: String(flat[i]),
        payload: flat[i + 1] as Buffer,
        attempts: Number(flat[i + 2]),
        priority: priorityOfScore(Number(String(flat[i + 3]))),
      });
    }
    return taken;
  }

  /** True when acknowledged; false when the message was no longer ours (its visibility expired). */
  async ack(id: string): Promise<boolean> {
    return (await this.ackMany([id]))[0];
  }

  /** Acknowledges up to 1000 messages in one call; per id, whether it was still ours. */
  async ackMany(ids: string[]): Promise<boolean[]> {
    if (ids.length === 0) return [];
    const results = await evalScript<number[]>(this.client, "ack", [this.keys.active, this.keys.data, this.keys.stats], ids.slice(0, MAX_BATCH));
    return results.map((result) => result === 1);
  }

  async fail(id: string, error: string, options: { maxAttempts: number; retryAt: number }): Promise<"retry" | "dead" | "not-active"> {
    const result = await evalScript<number>(
      this.client,
      "fail",
      [this.keys.active, this.keys.delayed, this.keys.dead, this.keys.data, this.keys.stats],
      [id, error, Date.now(), options.maxAttempts, options.retryAt],
    );
    return result === 2 ? "dead" : result === 1 ? "retry" : "not-active";
  }

  async reap(maxAttempts: number, count = MAX_BATCH): Promise<{ requeued: number; deadLettered: number }> {
    const [requeued, deadLettered] = await evalScript<[number, number]>(
      this.client,
      "reap",
      [this.keys.active, this.keys.wait, this.keys.dead, this.keys.data, this.keys.stats],
      [Date.now(), maxAttempts, Math.min(count, MAX_BATCH)],
    );
    return { requeued, deadLettered };
  }

  async reprioritise(id: string, priority: number): Promise<void> {
    const result = await evalScript<number>(
      this.client,
      "reprioritise",
      [this.keys.wait, this.keys.delayed, this.keys.active, this.keys.data],
      [id, parsePriority(priority)],
    );
    if (result === -1) throw new VaralError("not_found", `No message ${id} waits in queue "${this.name}".`);
    if (result === -2) throw new VaralError("conflict", `Message ${id} is being processed right now: there is nothing to reorder.`);
  }

  /** One bounded step of re-prioritising waiting messages that match; repeat with the cursor until "". */
  async reprioritiseMatching(
    filter: { priority?: number; contains?: string },
    priority: number,
    cursor: string,
    batch = MAX_BATCH,
  ): Promise<{ cursor: string; changed: number; scanned: number }> {
    const [next, changed, scanned] = await evalScript<[string, number, number]>(
      this.client,
      "reprioritiseMatching",
      [this.keys.wait, this.keys.data],
      [cursor, Math.min(batch, MAX_BATCH), parsePriority(priority), filter.priority === undefined ? "" : parsePriority(filter.priority), filter.contains ?? ""],
    );
    return { cursor: String(next), changed, scanned };
  }

  /** One bounded step of a redrive; with a filter, repeat with the cursor until "". */
  async redrive(count: number, filter = "", cursor = ""): Promise<{ moved: number; cursor: string }> {
    const [moved, next] = await evalScript<[number, string]>(
      this.client,
      "redrive",
      [this.keys.dead, this.keys.wait, this.keys.data, this.keys.stats],
      [Math.min(Math.max(1, count), MAX_BATCH), filter, cursor],
    );
    return { moved, cursor: String(next) };
  }

  /**
   * Deletes what `sets` held at one instant: they are taken out of line at once, then
   * deleted in bounded batches (Redis is never blocked for long). Messages enqueued, failed
   * or reaped meanwhile are kept. What an interrupted purge left taken is deleted first
   * (`resumed`). `afterBatch` sees the running total, to report progress.
   */
  async purge(
    sets: PurgeableSet[],
    afterBatch: (deleted: number) => Promise<void> = async () => undefined,
    batch = MAX_BATCH,
  ): Promise<{ purged: number; resumed: number }> {
    const step = Math.min(batch, MAX_BATCH);
    let deleted = 0;
    const drain = async () => {
      for (const set of sets) {
        for (;;) {
          const count = await evalScript<number>(this.client, "purge", [this.keys.purging[set], this.keys.data, this.keys.stats], [step]);
          if (count === 0) break;
          deleted += count;
          await afterBatch(deleted);
          if (count < step) break;
        }
      }
    };
    await drain();
    const resumed = deleted;
    const takeKeys = PURGEABLE_SETS.flatMap((set) => [this.keys[set], this.keys.purging[set]]);
    const taken = await evalScript<number>(this.client, "purgeTake", takeKeys, sets);
    if (taken === -1) throw this.wrongType();
    if (taken === -5) throw new VaralError("conflict", `Another purge of queue "${this.name}" is still deleting: wait for it to end, then purge again.`);
    await drain();
    return { purged: deleted - resumed, resumed };
  }

  async peek(set: QueueSet, start: number, count: number): Promise<StoredMessage[]> {
    const flat = await evalScript<Array<Buffer | false | null>>(
      this.client,
      "peek",
      [this.keys[set], this.keys.data],
      [Math.max(0, start), Math.min(Math.max(1, count), 200)],
      { buffers: true },
    );
    const messages: StoredMessage[] = [];
    for (let i = 0; i < flat.length; i += 6) {
      const waitScore = flat[i + 5] ? Number(String(flat[i + 5])) : null;
      messages.push({
        id: String(flat[i]),
        setScore: Number(String(flat[i + 1])),
        payload: (flat[i + 2] as Buffer | null) || null,
        meta: flat[i + 3] ? JSON.parse(String(flat[i + 3])) : {},
        attempts: flat[i + 4] ? Number(String(flat[i + 4])) : 0,
        priority: waitScore === null ? null : priorityOfScore(waitScore),
      });
    }
    return messages;
  }

  async stats(maxBands = 16): Promise<QueueStats> {
    return parseStats(
      await evalScript<unknown[]>(
        this.client,
        "stats",
        statsScriptKeys(this.keys),
        [maxBands],
      ),
    );
  }
}

/** The keys the stats script reads, in its order. */
export function statsScriptKeys(keys: PriorityQueueKeys): string[] {
  return [keys.wait, keys.delayed, keys.active, keys.dead, keys.data, keys.stats, keys.purging.wait, keys.purging.delayed, keys.purging.dead];
}

export function parseStats(raw: unknown[]): QueueStats {
  const [waiting, delayed, active, dead, counterList, bandList, oldest, oldestDead, purging, purgingDead] = raw as [
    number,
    number,
    number,
    number,
    string[],
    number[],
    number | null,
    string | null,
    number,
    number,
  ];
  const counters: Record<string, number> = {};
  for (let i = 0; i < counterList.length; i += 2) counters[counterList[i]] = Number(counterList[i + 1]);
  const bands: QueueStats["bands"] = [];
  for (let i = 0; i < bandList.length; i += 2) bands.push({ priority: Number(bandList[i]), depth: Number(bandList[i + 1]) });
  return {
    waiting,
    delayed,
    active,
    dead,
    counters,
    bands,
    oldestEnqueuedAt: oldest ? Number(oldest) : null,
    oldestDeadAt: oldestDead ? Number(oldestDead) : null,
    purging: Number(purging ?? 0),
    purgingDead: Number(purgingDead ?? 0),
  };
}
