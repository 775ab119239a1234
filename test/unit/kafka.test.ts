// Kafka's pure parts: Burrow's rules, time lag by interpolation, DLQ rules, hot partitions,
// and the browse page that never skips a record.
import { describe, expect, it } from "vitest";
import { redriveDestination } from "@/server/brokers/kafka/actions";
import { mergeByTime } from "@/server/brokers/kafka/browse";
import { originalTopicByName, originalTopicFromHeaders } from "@/server/brokers/kafka/dlq";
import { groupObservation, hotPartition, type PartitionView } from "@/server/brokers/kafka/parse";
import { judgePartition, pushSample, worstVerdict, type OffsetSample } from "@/server/brokers/kafka/status";
import { interpolateWrittenAt, pushEndSample } from "@/server/brokers/kafka/time-lag";
import type { WireRecord } from "@/server/brokers/kafka/wire";

function window(points: Array<[committed: number, lag: number]>): OffsetSample[] {
  return points.map(([committed, lag], i) => ({ at: i * 5_000, committed, lag }));
}

describe("Burrow's rules", () => {
  it("is OK when caught up, whatever the trend", () => {
    expect(judgePartition(window([[10, 5], [10, 5], [10, 0]]), 3, null).status).toBe("OK");
  });

  it("does not judge a window that is not full yet", () => {
    expect(judgePartition(window([[10, 5], [10, 5]]), 3, "c1")).toMatchObject({ status: "OK", rule: expect.stringContaining("2 of 3") });
  });

  it("is WARN when lag never decreased while the consumer commits", () => {
    const verdict = judgePartition(window([[10, 5], [12, 8], [14, 8], [16, 11]]), 4, "c1");
    expect(verdict).toMatchObject({ status: "WARN", rule: expect.stringContaining("from 5 to 11") });
  });

  it("is OK when lag went down once in the window", () => {
    expect(judgePartition(window([[10, 5], [12, 8], [20, 3], [22, 6]]), 4, "c1").status).toBe("OK");
  });

  it("is STALL when the offset is stuck with lag and a live owner, STOP without one", () => {
    const stuck = window([[10, 5], [10, 6], [10, 9]]);
    expect(judgePartition(stuck, 3, "worker-1")).toMatchObject({ status: "STALL", rule: expect.stringContaining("worker-1 owns") });
    expect(judgePartition(stuck, 3, null)).toMatchObject({ status: "STOP", rule: expect.stringContaining("no commit for 10 s") });
  });

  it("is REWIND as soon as the committed offset goes back, even before the window fills", () => {
    expect(judgePartition(window([[10, 5], [3, 12]]), 10, "c1")).toMatchObject({ status: "REWIND", rule: expect.stringContaining("from 10 to 3") });
  });

  it("gives the group its worst partition, naming every partition with that status", () => {
    const worst = worstVerdict([
      { partition: 0, status: "OK", rule: "ok" },
      { partition: 1, status: "STALL", rule: "stall" },
      { partition: 2, status: "WARN", rule: "warn" },
      { partition: 3, status: "STALL", rule: "stall" },
    ]);
    expect(worst).toMatchObject({ status: "STALL", partitions: [1, 3] });
  });

  it("keeps only the window", () => {
    let samples: OffsetSample[] = [];
    for (let i = 0; i < 15; i++) samples = pushSample(samples, { at: i, committed: i, lag: 0 }, 10);
    expect(samples.map((s) => s.committed)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
  });
});

describe("time lag by interpolation", () => {
  const samples = [
    { at: 1_000, end: 100 },
    { at: 2_000, end: 200 },
    { at: 4_000, end: 300 },
  ];

  it("dates an offset between two samples", () => {
    expect(interpolateWrittenAt(samples, 149)).toEqual({ at: 1_500, source: "interpolated" });
    expect(interpolateWrittenAt(samples, 249)).toEqual({ at: 3_000, source: "interpolated" });
  });

  it("gives a lower bound before the oldest sample, and nothing at the end", () => {
    expect(interpolateWrittenAt(samples, 20)).toEqual({ at: 1_000, source: "lower-bound" });
    expect(interpolateWrittenAt(samples, 300)).toBeNull();
    expect(interpolateWrittenAt([], 5)).toBeNull();
  });

  it("records a sample only when the end moved", () => {
    let kept = pushEndSample([], { at: 1, end: 5 }, 3);
    kept = pushEndSample(kept, { at: 2, end: 5 }, 3);
    kept = pushEndSample(kept, { at: 3, end: 6 }, 3);
    expect(kept).toEqual([
      { at: 1, end: 5 },
      { at: 3, end: 6 },
    ]);
  });
});

describe("DLQ topics", () => {
  it("finds the original topic by suffix", () => {
    expect(originalTopicByName("orders.DLQ", [".DLQ", "-dlt"])).toBe("orders");
    expect(originalTopicByName("orders-dlt", [".DLQ", "-dlt"])).toBe("orders");
    expect(originalTopicByName(".DLQ", [".DLQ"])).toBeNull();
    expect(originalTopicByName("orders", [".DLQ", "-dlt"])).toBeNull();
  });

  it("reads the original topic from Spring, Connect or Varal headers, never from binary", () => {
    expect(originalTopicFromHeaders({ "kafka_dlt-original-topic": Buffer.from("payments") })).toBe("payments");
    expect(originalTopicFromHeaders({ "__connect.errors.topic": [Buffer.from("sink"), Buffer.from("other")] })).toBe("sink");
    expect(originalTopicFromHeaders({ "x-original-topic": Buffer.from([0xff, 0xfe]) })).toBeNull();
  });

  it("sends a redriven record to the chosen topic, else its header, else the naming rule", () => {
    const headers = { "x-original-topic": Buffer.from("from-header") };
    expect(redriveDestination({ headers }, { destination: "chosen" }, "by-name")).toBe("chosen");
    expect(redriveDestination({ headers }, {}, "by-name")).toBe("from-header");
    expect(redriveDestination({ headers: {} }, {}, "by-name")).toBe("by-name");
    expect(redriveDestination({ headers: {} }, {}, null)).toBeNull();
  });
});

describe("hot partitions", () => {
  it("flags one partition carrying most of the lag, not a mild skew", () => {
    expect(hotPartition([{ partition: 0, value: 900 }, { partition: 1, value: 50 }, { partition: 2, value: 50 }], 100)).toEqual({ partition: 0, share: 0.9 });
    expect(hotPartition([{ partition: 0, value: 55 }, { partition: 1, value: 45 }], 10)).toBeNull();
    expect(hotPartition([{ partition: 0, value: 9 }, { partition: 1, value: 1 }], 100)).toBeNull();
  });

  it("shows on the group's observation, and an under-replicated partition warns", () => {
    const partition = (p: number, lag: number, underReplicated = false): PartitionView => ({
      partition: p,
      committed: 0,
      logStart: 0,
      logEnd: lag,
      lag,
      lagSeconds: null,
      lagSecondsFrom: null,
      owner: "c",
      status: "OK",
      rule: "OK: committing and keeping up",
      rateIn: null,
      underReplicated,
    });
    const observation = groupObservation({
      group: "g",
      topic: "t",
      state: "Stable",
      members: [],
      partitions: [partition(0, 1000), partition(1, 10, true), partition(2, 10)],
      dlqName: null,
    });
    expect(observation.facts.hotPartitions).toEqual([{ partition: 0, share: 1000 / 1020, of: "lag" }]);
    expect(observation.status).toMatchObject({ status: "warning", reason: expect.stringContaining("under-replicated partition(s) 1") });
    expect(observation).toMatchObject({ depth: 1020, lagMessages: 1020, name: "g@t" });
  });
});

describe("a group that rebalances", () => {
  it("says partitions are changing hands instead of judging offsets that are about to move", () => {
    const observation = groupObservation({ group: "g", topic: "t", state: "PreparingRebalance", members: [], partitions: [], dlqName: null });
    expect(observation.status).toEqual({ status: "warning", reason: expect.stringContaining("rebalancing (PreparingRebalance)") });
  });
});

describe("browsing across partitions", () => {
  const record = (partition: number, offset: number, timestamp: number): WireRecord => ({ topic: "t", partition, offset, timestamp, key: null, value: null, headers: {} });

  it("takes a prefix of each partition, oldest first, even with timestamps out of order", () => {
    const page = mergeByTime([record(0, 1, 50), record(0, 0, 100), record(1, 7, 60), record(1, 8, 70)], 3);
    expect(page.map((r) => `${r.partition}:${r.offset}`)).toEqual(["1:7", "1:8", "0:0"]);
  });
});
