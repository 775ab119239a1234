// Runs pending actions in the background. A job is claimed with a conditional update, so
// several replicas never run the same one; one queue never has two actions at once.
import { getQueue } from "../collect/queries";
import { collectorState } from "../collect/state";
import { db, fromJsonColumn, toJsonColumn } from "../db/client";
import { describeError } from "../errors";
import { runSegmentCleanup, type SegmentTarget } from "../agents/cleanup";
import { findActionHandler } from "./registry";
import type { ActionKind } from "./types";

const MAX_CONCURRENT = 4;
const PROGRESS_WRITE_MS = 250;
const CANCEL_CHECK_MS = 1_000;

export class ActionCancelled extends Error {
  constructor() {
    super("cancelled by an operator");
    this.name = "ActionCancelled";
  }
}

export class ActionRunner {
  private readonly running = new Map<string, { controller: AbortController; queue: string }>();
  private started = false;
  private waking: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly idle = new Set<() => void>();

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    // Actions that were running when the process stopped did not finish: say so.
    await db().action.updateMany({
      where: { state: "running" },
      data: {
        state: "failed",
        finishedAt: new Date(),
        error: "Interrupted by a restart of Varal. Messages already moved stay moved; run the action again to finish.",
      },
    });
    // A slow tick picks up work requested on another replica.
    this.timer = setInterval(() => this.wake(), 2_000);
    this.timer.unref?.();
    this.wake();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    for (const { controller } of this.running.values()) controller.abort(new Error("Varal is stopping"));
    await this.whenIdle();
  }

  wake(): void {
    if (!this.started) return;
    this.waking ??= this.claimAndRun().finally(() => {
      this.waking = null;
    });
  }

  cancelLocal(id: string): void {
    this.running.get(id)?.controller.abort(new ActionCancelled());
  }

  /** Resolves when no action is running (tests wait on it). */
  whenIdle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.add(resolve));
  }

  private async claimAndRun(): Promise<void> {
    while (this.started && this.running.size < MAX_CONCURRENT) {
      const busyQueues = new Set([...this.running.values()].map((entry) => entry.queue));
      const candidates = await db().action.findMany({ where: { state: "pending" }, orderBy: { createdAt: "asc" }, take: 20 });
      const next = candidates.find((row) => !busyQueues.has(row.target));
      if (!next) return;
      const claimed = await db().action.updateMany({
        where: { id: next.id, state: "pending" },
        data: { state: "running", startedAt: new Date() },
      });
      if (claimed.count === 0) continue;
      const controller = new AbortController();
      this.running.set(next.id, { controller, queue: next.target });
      void this.execute(next.id, next.kind as ActionKind, next.target, next.params, controller).finally(() => {
        this.running.delete(next.id);
        if (this.running.size === 0) for (const resolve of this.idle) resolve();
        if (this.running.size === 0) this.idle.clear();
        this.wake();
      });
    }
  }

  private async execute(id: string, kind: ActionKind, targetJson: string, paramsJson: string, controller: AbortController): Promise<void> {
    const cancelPoll = setInterval(async () => {
      const row = await db().action.findUnique({ where: { id }, select: { cancelRequested: true } }).catch(() => null);
      if (row?.cancelRequested) controller.abort(new ActionCancelled());
    }, CANCEL_CHECK_MS);
    let lastWrite = 0;
    let lastDone = 0;
    let lastTotal: number | null | undefined;
    try {
      const progress = async (done: number, total?: number | null) => {
        lastDone = done;
        if (total !== undefined) lastTotal = total;
        if (controller.signal.aborted) throw controller.signal.reason;
        if (Date.now() - lastWrite < PROGRESS_WRITE_MS) return;
        lastWrite = Date.now();
        await db().action.update({
          where: { id },
          data: { progressDone: done, ...(total !== undefined ? { progressTotal: total } : {}) },
        });
      };
      let result: unknown;
      if (kind === "segment-cleanup") {
        // Carried out by the host's agent: the job issues its command and waits for the outcome.
        result = await runSegmentCleanup(id, fromJsonColumn<SegmentTarget>(targetJson)!, controller.signal, progress);
      } else {
        const target = fromJsonColumn<{ queue: string }>(targetJson)!;
        const queue = getQueue(target.queue);
        const broker = collectorState().brokers.get(queue.broker)!.config;
        const handler = findActionHandler(broker.kind, kind);
        if (!handler) throw new Error(`this Varal cannot ${kind} ${broker.kind} queues`);
        const params = handler.params.parse(fromJsonColumn(paramsJson));
        result = await handler.run({ actionId: id, queue, broker, params, signal: controller.signal, progress });
      }
      await db().action.update({
        where: { id },
        data: {
          state: "succeeded",
          result: toJsonColumn(result),
          progressDone: lastDone,
          ...(lastTotal !== undefined ? { progressTotal: lastTotal } : {}),
          finishedAt: new Date(),
        },
      });
    } catch (error) {
      const cancelled = error instanceof ActionCancelled || controller.signal.reason instanceof ActionCancelled;
      await db().action.update({
        where: { id },
        data: {
          state: cancelled ? "cancelled" : "failed",
          error: cancelled ? null : describeError(error),
          result: cancelled ? toJsonColumn({ stoppedAfter: lastDone }) : null,
          progressDone: lastDone,
          finishedAt: new Date(),
        },
      });
    } finally {
      clearInterval(cancelPoll);
    }
  }
}

const holder = globalThis as typeof globalThis & { __varalActionRunner?: ActionRunner };

export function actionRunner(): ActionRunner {
  holder.__varalActionRunner ??= new ActionRunner();
  return holder.__varalActionRunner;
}
