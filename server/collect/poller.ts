// One poll loop per broker: its own timer, timeout and failure state, so a broker that
// hangs or refuses never slows the others (bulkheads).
import { createAdapter } from "../brokers/registry";
import { abortable, type BrokerAdapter } from "../brokers/types";
import type { BrokerConfig, VaralConfig } from "../config/schema";
import { describeError } from "../errors";
import { deriveSnapshots, markUnreachable, type CounterMemory } from "./derive";
import type { HistoryStore } from "./history";
import type { BrokerState } from "./state";

export class BrokerPoller {
  private readonly adapter: BrokerAdapter;
  private readonly memory = new Map<string, CounterMemory>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  readonly intervalMs: number;
  readonly timeoutMs: number;

  constructor(
    private readonly broker: BrokerConfig,
    private readonly state: BrokerState,
    private readonly history: HistoryStore,
    private readonly config: VaralConfig,
    /** Called after every poll, good or bad: the cache has changed. */
    private readonly onPolled: () => void = () => undefined,
  ) {
    this.intervalMs = broker.pollIntervalMs ?? config.pollIntervalMs;
    this.timeoutMs = Math.min(broker.pollTimeoutMs ?? config.pollTimeoutMs, this.intervalMs);
    this.adapter = createAdapter(broker, { countCalls: (n = 1) => void (state.brokerCalls += n) }, this.timeoutMs);
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const started = Date.now();
      // Fixed rate: the next poll is due one interval after this one started, so a slow
      // poll or a busy process does not stretch the interval.
      this.pollOnce().finally(() => this.schedule(Math.max(0, this.intervalMs - (Date.now() - started))));
    }, delayMs);
    this.timer.unref?.();
  }

  /** Polls now, unless a poll is still under way (then waits for that one). */
  pollOnce(): Promise<void> {
    this.running ??= this.poll().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async poll(): Promise<void> {
    const started = Date.now();
    const controller = new AbortController();
    const timeoutError = new Error(`no answer within ${this.timeoutMs} ms`);
    const timer = setTimeout(() => controller.abort(timeoutError), this.timeoutMs);
    try {
      // abortable() as well: an adapter whose client ignores the signal still cannot hold the loop.
      const { queues: observations, health } = await abortable(this.adapter.poll(controller.signal), controller.signal);
      const now = Date.now();
      const snapshots = deriveSnapshots(this.broker, observations, this.memory, now, this.config.lagWarningSeconds);
      this.state.snapshots = snapshots;
      this.state.byName = new Map(snapshots.map((snapshot) => [snapshot.name, snapshot]));
      this.state.health = health ?? null;
      this.state.status = health?.warnings.length ? "degraded" : "ok";
      this.state.lastSuccessAt = now;
      this.state.lastError = null;
      for (const snapshot of snapshots) {
        this.history.record(snapshot.id, now, {
          depth: snapshot.depth,
          lagMessages: snapshot.lagMessages,
          lagSeconds: snapshot.lagSeconds,
          rateIn: snapshot.rateIn,
          rateOut: snapshot.rateOut,
          dlqDepth: snapshot.dlq?.depth ?? null,
        });
      }
    } catch (error) {
      const reason = controller.signal.aborted ? `${this.broker.kind} broker gave ${timeoutError.message}` : describeError(error);
      this.state.status = "unreachable";
      this.state.lastError = reason;
      this.state.snapshots = markUnreachable(this.state.snapshots, reason);
      this.state.byName = new Map(this.state.snapshots.map((snapshot) => [snapshot.name, snapshot]));
    } finally {
      clearTimeout(timer);
      this.state.lastPollAt = Date.now();
      this.state.lastPollMs = Date.now() - started;
      this.state.polls += 1;
      this.onPolled();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
    await this.adapter.close();
  }
}
