// Starts and stops the poll loops, and persists the history's minute samples so that a
// restart keeps the last 24 hours of charts.
import type { VaralConfig } from "../config/schema";
import { db } from "../db/client";
import { describeError } from "../errors";
import { HISTORY_METRICS, MINUTES_KEPT, type HistorySample } from "./history";
import { BrokerPoller } from "./poller";
import { collectorState, newBrokerState } from "./state";

const PERSIST_EVERY_MS = 60_000;

interface Running {
  pollers: Map<string, BrokerPoller>;
  persistTimer: NodeJS.Timeout | null;
}

const holder = globalThis as typeof globalThis & { __varalPollers?: Running };

export async function startCollectors(config: VaralConfig, options: { persistHistory?: boolean } = {}): Promise<void> {
  await stopCollectors();
  const state = collectorState();
  state.config = config;
  state.brokers.clear();
  const pollers = new Map<string, BrokerPoller>();
  for (const broker of config.brokers) {
    const brokerState = newBrokerState(broker);
    state.brokers.set(broker.name, brokerState);
    pollers.set(broker.name, new BrokerPoller(broker, brokerState, state.history, config, () => void (state.generation += 1)));
  }
  let persistTimer: NodeJS.Timeout | null = null;
  if (options.persistHistory ?? true) {
    await restoreHistory().catch((error) => console.error(`varal: could not restore chart history: ${describeError(error)}`));
    persistTimer = setInterval(() => {
      persistHistory().catch((error) => console.error(`varal: could not persist chart history: ${describeError(error)}`));
    }, PERSIST_EVERY_MS);
    persistTimer.unref?.();
  }
  holder.__varalPollers = { pollers, persistTimer };
  for (const poller of pollers.values()) poller.start();
}

export async function stopCollectors(): Promise<void> {
  const running = holder.__varalPollers;
  holder.__varalPollers = undefined;
  if (!running) return;
  if (running.persistTimer) clearInterval(running.persistTimer);
  await Promise.all([...running.pollers.values()].map((poller) => poller.stop()));
}

/** Polls every broker once, now, and waits for all of them (tests and the CLI use it). */
export async function pollAllNow(): Promise<void> {
  const running = holder.__varalPollers;
  if (!running) throw new Error("collectors are not started");
  await Promise.all([...running.pollers.values()].map((poller) => poller.pollOnce()));
}

export async function persistHistory(nowMs = Date.now()): Promise<number> {
  const minutes = collectorState().history.takeCompletedMinutes(nowMs);
  if (minutes.length > 0) {
    const rows = minutes.map(({ queueId, at, sample }) => ({ queueId, at, ...sample }));
    for (let i = 0; i < rows.length; i += 500) {
      await db().historyPoint.createMany({ data: rows.slice(i, i + 500) });
    }
  }
  await db().historyPoint.deleteMany({ where: { at: { lt: new Date(nowMs - MINUTES_KEPT * 60_000) } } });
  return minutes.length;
}

export async function restoreHistory(nowMs = Date.now()): Promise<number> {
  const rows = await db().historyPoint.findMany({ where: { at: { gte: new Date(nowMs - MINUTES_KEPT * 60_000) } } });
  collectorState().history.restore(
    rows.map((row) => {
      const sample = {} as HistorySample;
      for (const metric of HISTORY_METRICS) sample[metric] = row[metric];
      return { queueId: row.queueId, at: row.at, sample };
    }),
  );
  return rows.length;
}
