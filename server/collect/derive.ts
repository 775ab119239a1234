// Turns one poll's observations into snapshots: rates from counter deltas, DLQ depths,
// and each queue's status.
import type { BrokerConfig } from "../config/schema";
import type { QueueObservation } from "../brokers/types";
import { queueId, type QueueSnapshot } from "./snapshot";
import { judgeStatus, nextIdlePolls } from "./status";

export interface CounterMemory {
  at: number;
  in: number | null;
  out: number | null;
  idlePolls: number;
}

function rate(current: number | null | undefined, previous: number | null | undefined, seconds: number): number | null {
  if (current == null || previous == null || seconds <= 0) return null;
  // A counter that went backwards was reset (a restart, an offset reset): no rate this time.
  if (current < previous) return null;
  return (current - previous) / seconds;
}

export function deriveSnapshots(
  broker: BrokerConfig,
  observations: QueueObservation[],
  memory: Map<string, CounterMemory>,
  nowMs: number,
  lagWarningSeconds: number,
): QueueSnapshot[] {
  const depthByName = new Map(observations.map((queue) => [queue.name, queue.depth]));
  const deadLetterQueues = new Set(observations.map((queue) => queue.dlqName).filter((name): name is string => !!name));
  const observedAt = new Date(nowMs).toISOString();
  const seen = new Set<string>();
  const snapshots = observations.map((queue) => {
    seen.add(queue.name);
    const previous = memory.get(queue.name);
    const seconds = previous ? (nowMs - previous.at) / 1000 : 0;
    const rateIn = queue.counters ? rate(queue.counters.in, previous?.in, seconds) : (queue.rateIn ?? null);
    const rateOut = queue.counters ? rate(queue.counters.out, previous?.out, seconds) : (queue.rateOut ?? null);
    const idlePolls = nextIdlePolls(previous?.idlePolls ?? 0, queue, rateOut);
    memory.set(queue.name, { at: nowMs, in: queue.counters?.in ?? null, out: queue.counters?.out ?? null, idlePolls });
    const dlqDepth = queue.dlqName ? (depthByName.get(queue.dlqName) ?? null) : null;
    const { status, reason } = judgeStatus({
      observation: queue,
      rateOut,
      dlqDepth,
      idlePolls,
      lagWarningSeconds,
      isDeadLetterQueue: queue.isDeadLetterQueue === true || deadLetterQueues.has(queue.name),
    });
    const snapshot: QueueSnapshot = {
      id: queueId(broker.name, queue.name),
      broker: broker.name,
      kind: broker.kind,
      name: queue.name,
      type: queue.type,
      depth: queue.depth,
      inflight: queue.inflight,
      delayed: queue.delayed,
      consumers: queue.consumers,
      rateIn,
      rateOut,
      lagMessages: queue.lagMessages,
      lagSeconds: queue.lagSeconds,
      dlq: queue.dlqName && depthByName.has(queue.dlqName) ? { id: queueId(broker.name, queue.dlqName), depth: dlqDepth } : null,
      status,
      statusReason: reason,
      observedAt,
      stale: false,
      facts: queue.facts,
    };
    return snapshot;
  });
  for (const name of memory.keys()) if (!seen.has(name)) memory.delete(name);
  return snapshots;
}

/** The last good snapshots of a broker that stopped answering. */
export function markUnreachable(snapshots: QueueSnapshot[], reason: string): QueueSnapshot[] {
  return snapshots.map((snapshot) => ({ ...snapshot, status: "unreachable", statusReason: reason, stale: true }));
}
