// Consuming a Varal priority queue from a service: a loop that takes messages up to the
// concurrency limit, runs the handler, acks or fails each, and reaps messages whose
// consumer died. stop() (and SIGTERM, with stopOnSignals) stops taking work, lets the
// messages in hand finish, then resolves.
import { describeError } from "../../errors";
import { backoffMs } from "../../backoff";
import { PriorityQueue, type TakenMessage } from "./priority-queue";

export interface ConsumeOptions {
  concurrency?: number;
  /** How long a taken message stays invisible to others; a handler must finish within it. */
  visibilityMs?: number;
  maxAttempts?: number;
  backoff?: { baseMs: number; maxMs: number };
  /** Wait between polls of an empty queue. */
  idleMs?: number;
  /** How often expired messages are returned to the queue. */
  reapEveryMs?: number;
  onError?: (error: unknown) => void;
}

export type MessageHandler = (message: TakenMessage) => Promise<void>;

export interface Consumer {
  /** Stops taking messages, waits for those in hand, then resolves. */
  stop(): Promise<void>;
  readonly inFlight: number;
  readonly processed: number;
}

export function consume(queue: PriorityQueue, handler: MessageHandler, options: ConsumeOptions = {}): Consumer {
  const concurrency = options.concurrency ?? 1;
  const visibilityMs = options.visibilityMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 5;
  const backoff = options.backoff ?? { baseMs: 1_000, maxMs: 60_000 };
  const idleMs = options.idleMs ?? 100;
  const reapEveryMs = options.reapEveryMs ?? 1_000;
  const onError = options.onError ?? ((error) => console.error(`varal consumer (${queue.name}): ${describeError(error)}`));

  let running = true;
  let inFlight = 0;
  let processed = 0;
  let lastReap = 0;
  let wake: (() => void) | null = null;
  const handling = new Set<Promise<void>>();

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  // Acks that finish in the same tick go to Redis in one call.
  let pendingAcks: Array<{ id: string; done: () => void }> = [];
  function ack(id: string): Promise<void> {
    return new Promise((resolve) => {
      pendingAcks.push({ id, done: resolve });
      if (pendingAcks.length > 1) return;
      setImmediate(() => {
        const batch = pendingAcks;
        pendingAcks = [];
        queue
          .ackMany(batch.map((entry) => entry.id))
          .catch(onError)
          .finally(() => batch.forEach((entry) => entry.done()));
      });
    });
  }

  async function handle(message: TakenMessage): Promise<void> {
    try {
      await handler(message);
      await ack(message.id);
    } catch (error) {
      const retryAt = Date.now() + backoffMs(message.attempts, backoff.baseMs, backoff.maxMs);
      await queue.fail(message.id, describeError(error), { maxAttempts, retryAt }).catch(onError);
    } finally {
      inFlight--;
      processed++;
      wake?.();
    }
  }

  async function loop(): Promise<void> {
    while (running) {
      try {
        if (Date.now() - lastReap >= reapEveryMs) {
          lastReap = Date.now();
          await queue.reap(maxAttempts);
        }
        const room = concurrency - inFlight;
        if (room <= 0) {
          await pause(idleMs);
          continue;
        }
        const taken = await queue.dequeue(room, visibilityMs);
        if (taken.length === 0) {
          await pause(idleMs);
          continue;
        }
        for (const message of taken) {
          inFlight++;
          const promise = handle(message);
          handling.add(promise);
          void promise.finally(() => handling.delete(promise));
        }
      } catch (error) {
        onError(error);
        await pause(Math.max(idleMs, 500));
      }
    }
  }

  const looping = loop();
  return {
    async stop() {
      running = false;
      wake?.();
      await looping;
      await Promise.all(handling);
    },
    get inFlight() {
      return inFlight;
    },
    get processed() {
      return processed;
    },
  };
}

/** On SIGTERM or SIGINT: stop taking work, finish what is in hand, then exit. */
export function stopOnSignals(consumer: Consumer, onStopped: () => Promise<void> | void = () => process.exit(0)): void {
  const stop = () => {
    void consumer.stop().then(onStopped);
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
