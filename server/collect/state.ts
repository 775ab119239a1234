// Process-wide collector state. Next.js compiles instrumentation and route handlers as
// separate server entries, so a module-level singleton could exist twice: the state lives
// on globalThis behind this one accessor.
import type { BrokerHealthReport } from "../brokers/types";
import type { BrokerConfig, VaralConfig } from "../config/schema";
import { HistoryStore } from "./history";
import type { BrokerHealth, QueueSnapshot } from "./snapshot";

export interface BrokerState {
  config: BrokerConfig;
  status: BrokerHealth;
  lastPollAt: number | null;
  lastSuccessAt: number | null;
  lastError: string | null;
  lastPollMs: number | null;
  snapshots: QueueSnapshot[];
  byName: Map<string, QueueSnapshot>;
  /** The broker's own facts and warnings from its last good poll. */
  health: BrokerHealthReport | null;
  /** Calls made to the broker since start. */
  brokerCalls: number;
  polls: number;
}

export interface CollectorState {
  config: VaralConfig | null;
  /** Grows with every poll: answers computed from the cache are valid for one generation. */
  generation: number;
  brokers: Map<string, BrokerState>;
  history: HistoryStore;
}

const holder = globalThis as typeof globalThis & { __varalCollector?: CollectorState };

export function collectorState(): CollectorState {
  holder.__varalCollector ??= { config: null, generation: 0, brokers: new Map(), history: new HistoryStore() };
  return holder.__varalCollector;
}

export function newBrokerState(config: BrokerConfig): BrokerState {
  return {
    config,
    status: "unreachable",
    lastPollAt: null,
    lastSuccessAt: null,
    lastError: "not polled yet",
    lastPollMs: null,
    snapshots: [],
    byName: new Map(),
    health: null,
    brokerCalls: 0,
    polls: 0,
  };
}
