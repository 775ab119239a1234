import { describe, expect, it } from "vitest";
import type { QueueObservation } from "@/server/brokers/types";
import { deriveSnapshots, markUnreachable, type CounterMemory } from "@/server/collect/derive";
import { STALL_POLLS } from "@/server/collect/status";
import type { BrokerConfig } from "@/server/config/schema";

const broker = { name: "k", kind: "kafka", brokers: ["x:1"], clientId: "varal" } as BrokerConfig;

function observation(overrides: Partial<QueueObservation>): QueueObservation {
  return {
    name: "g@t",
    type: "consumer-group",
    depth: 0,
    inflight: null,
    delayed: null,
    consumers: 1,
    lagMessages: 0,
    lagSeconds: 0,
    facts: {},
    ...overrides,
  };
}

describe("snapshots from observations", () => {
  it("derives rates from counter deltas and skips a counter that went backwards", () => {
    const memory = new Map<string, CounterMemory>();
    deriveSnapshots(broker, [observation({ counters: { in: 100, out: 50 } })], memory, 0, 300);
    const [second] = deriveSnapshots(broker, [observation({ counters: { in: 200, out: 70 } })], memory, 10_000, 300);
    expect(second.rateIn).toBe(10);
    expect(second.rateOut).toBe(2);
    const [reset] = deriveSnapshots(broker, [observation({ counters: { in: 5, out: 75 } })], memory, 20_000, 300);
    expect(reset.rateIn).toBeNull();
    expect(reset.rateOut).toBe(0.5);
  });

  it("links a queue to its DLQ's depth and warns while dead letters wait", () => {
    const [source, dlq] = deriveSnapshots(
      broker,
      [observation({ name: "orders", dlqName: "orders:dlq" }), observation({ name: "orders:dlq", depth: 3, consumers: null })],
      new Map(),
      0,
      300,
    );
    expect(source.dlq).toEqual({ id: "k/orders:dlq", depth: 3 });
    expect(source.status).toBe("warning");
    expect(source.statusReason).toContain("3 message(s) in its dead-letter queue");
    expect(dlq.dlq).toBeNull();
    // A DLQ has no consumer by design: never "stopped", but its waiting dead letters show.
    expect(dlq).toMatchObject({ status: "warning", statusReason: "3 dead letter(s) wait for a redrive or a purge" });
  });

  it("says stopped when messages wait with no consumer, and stalled when consumers take nothing", () => {
    const [stopped] = deriveSnapshots(broker, [observation({ depth: 5, consumers: 0 })], new Map(), 0, 300);
    expect(stopped.status).toBe("stopped");
    const memory = new Map<string, CounterMemory>();
    let status = "";
    for (let poll = 0; poll <= STALL_POLLS; poll++) {
      [{ status }] = deriveSnapshots(broker, [observation({ depth: 5, consumers: 2, counters: { in: 10, out: 10 } })], memory, poll * 5_000, 300);
    }
    expect(status).toBe("stalled");
  });

  it("warns on lag over the threshold, and an unreachable broker's snapshots turn stale", () => {
    const [late] = deriveSnapshots(broker, [observation({ depth: 1, lagSeconds: 900 })], new Map(), 0, 300);
    expect(late.status).toBe("warning");
    const [stale] = markUnreachable([late], "connection refused");
    expect(stale).toMatchObject({ status: "unreachable", stale: true, statusReason: "connection refused", depth: 1 });
  });
});
