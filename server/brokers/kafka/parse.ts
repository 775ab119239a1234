// Pure: what one poll read of a consumer group on a topic, as an observation with its
// partitions, the sums, the worst partition, hot and under-replicated partitions, and a
// status that Burrow's rules gave.
import type { QueueObservation } from "../types";
import { VARAL_STATUS, worstVerdict, type PartitionStatus } from "./status";
import type { TimeLagSource } from "./time-lag";

export interface PartitionView {
  partition: number;
  /** The group's committed offset; -1 when it has none. */
  committed: number;
  logStart: number;
  logEnd: number;
  lag: number | null;
  lagSeconds: number | null;
  lagSecondsFrom: TimeLagSource | null;
  /** The client id of the live member assigned this partition. */
  owner: string | null;
  status: PartitionStatus | null;
  rule: string | null;
  /** Records per second written to this partition, from end offset deltas. */
  rateIn: number | null;
  underReplicated: boolean;
}

export interface MemberView {
  memberId: string;
  clientId: string;
  host: string;
  partitions: number[];
}

export interface GroupTopicView {
  group: string;
  topic: string;
  state: string;
  members: MemberView[];
  partitions: PartitionView[];
  /** The queue name of this topic's dead-letter topic, if it has one. */
  dlqName: string | null;
}

export interface HotPartition {
  partition: number;
  /** The share of the group's lag, or of the topic's traffic, this partition carries. */
  share: number;
  of: "lag" | "traffic";
}

/** Lag of one partition as Kafka's own tool counts it: end minus committed, unknown without a commit. */
export function partitionLag(committed: number, logEnd: number): number | null {
  if (committed < 0) return null;
  return Math.max(0, logEnd - committed);
}

/**
 * The partition that carries most of a total, if one does: more than half of it, and at
 * least one and a half times a fair share (so two partitions at 55/45 are not "hot").
 */
export function hotPartition(values: ReadonlyArray<{ partition: number; value: number | null }>, minimumTotal: number): { partition: number; share: number } | null {
  if (values.length < 2) return null;
  const total = values.reduce((sum, entry) => sum + (entry.value ?? 0), 0);
  if (total < minimumTotal || total <= 0) return null;
  const top = values.reduce((a, b) => ((b.value ?? 0) > (a.value ?? 0) ? b : a));
  const share = (top.value ?? 0) / total;
  return share > Math.max(0.5, 1.5 / values.length) ? { partition: top.partition, share } : null;
}

/** Lag below which a skew is noise, not a hot partition. */
const HOT_LAG_MINIMUM = 100;
/** Records per second below which a topic's skew is noise. */
const HOT_TRAFFIC_MINIMUM = 1;

export function hotPartitions(partitions: readonly PartitionView[]): HotPartition[] {
  const hot: HotPartition[] = [];
  const byLag = hotPartition(partitions.map((p) => ({ partition: p.partition, value: p.lag })), HOT_LAG_MINIMUM);
  if (byLag) hot.push({ ...byLag, of: "lag" });
  const byTraffic = hotPartition(partitions.map((p) => ({ partition: p.partition, value: p.rateIn })), HOT_TRAFFIC_MINIMUM);
  if (byTraffic) hot.push({ ...byTraffic, of: "traffic" });
  return hot;
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

export function groupObservation(view: GroupTopicView): QueueObservation {
  const lags = view.partitions.map((p) => p.lag).filter((lag): lag is number => lag !== null);
  const totalLag = lags.length > 0 ? lags.reduce((sum, lag) => sum + lag, 0) : null;
  const secondsKnown = view.partitions.map((p) => p.lagSeconds).filter((s): s is number => s !== null);
  const worstSeconds = secondsKnown.length > 0 ? Math.max(...secondsKnown) : totalLag === 0 ? 0 : null;
  const worstPartition = view.partitions.reduce<PartitionView | null>((worst, p) => (p.lag !== null && (worst === null || p.lag > (worst.lag ?? -1)) ? p : worst), null);
  const hot = hotPartitions(view.partitions);
  const underReplicated = view.partitions.filter((p) => p.underReplicated).map((p) => p.partition);
  const verdict = worstVerdict(view.partitions.filter((p) => p.status !== null).map((p) => ({ partition: p.partition, status: p.status!, rule: p.rule ?? "" })));
  const rebalancing = /rebalance/i.test(view.state);
  const notes = [
    ...hot.map((h) => `partition ${h.partition} carries ${percent(h.share)} of the ${h.of === "lag" ? "group's lag" : "topic's traffic"}`),
    ...(underReplicated.length > 0 ? [`under-replicated partition(s) ${underReplicated.join(", ")}`] : []),
  ];
  let status: QueueObservation["status"];
  if (rebalancing) {
    status = { status: "warning", reason: `the group is rebalancing (${view.state}): partitions are changing hands` };
  } else if (verdict) {
    const where = verdict.partitions.length > 1 ? ` (partitions ${verdict.partitions.join(", ")})` : ` (partition ${verdict.partitions[0]})`;
    const reason = verdict.status === "OK" && notes.length === 0 ? verdict.rule : [`${verdict.rule}${where}`, ...notes].join("; ");
    // An under-replicated partition is a risk to the data; a hot one is only flagged.
    status = { status: verdict.status === "OK" && underReplicated.length > 0 ? "warning" : VARAL_STATUS[verdict.status], reason };
  }
  return {
    name: `${view.group}@${view.topic}`,
    type: "consumer-group",
    depth: totalLag,
    inflight: null,
    delayed: null,
    consumers: view.members.length,
    counters: {
      in: view.partitions.reduce((sum, p) => sum + p.logEnd, 0),
      out: view.partitions.reduce((sum, p) => sum + Math.max(0, p.committed), 0),
    },
    lagMessages: totalLag,
    lagSeconds: worstSeconds,
    dlqName: view.dlqName,
    status,
    facts: {
      group: view.group,
      topic: view.topic,
      groupState: view.state,
      burrowStatus: verdict?.status ?? null,
      members: view.members,
      partitions: view.partitions,
      worstPartition: worstPartition ? { partition: worstPartition.partition, lag: worstPartition.lag, lagSeconds: worstPartition.lagSeconds } : null,
      hotPartitions: hot,
      underReplicatedPartitions: underReplicated,
    },
  };
}

export interface DeadLetterTopicView {
  /** Varal's own group, whose committed offsets mark what was redriven. */
  group: string;
  topic: string;
  originalTopic: string | null;
  detectedBy: "name" | "header";
  partitions: PartitionView[];
}

/** Where Varal's group reads a DLQ partition next: its commit, or the log start without one. */
export function redrivePosition(committed: number, logStart: number): number {
  return Math.max(committed, logStart);
}

/** A DLQ topic as a queue: the records Varal has not redriven (or that were not purged). */
export function deadLetterObservation(view: DeadLetterTopicView): QueueObservation {
  const waiting = view.partitions.reduce((sum, p) => sum + (p.lag ?? 0), 0);
  const seconds = view.partitions.map((p) => p.lagSeconds).filter((s): s is number => s !== null);
  return {
    name: `${view.group}@${view.topic}`,
    type: "consumer-group",
    depth: waiting,
    inflight: null,
    delayed: null,
    consumers: null,
    counters: {
      in: view.partitions.reduce((sum, p) => sum + p.logEnd, 0),
      out: view.partitions.reduce((sum, p) => sum + redrivePosition(p.committed, p.logStart), 0),
    },
    lagMessages: waiting,
    lagSeconds: seconds.length > 0 ? Math.max(...seconds) : waiting === 0 ? 0 : null,
    isDeadLetterQueue: true,
    facts: {
      group: view.group,
      topic: view.topic,
      deadLetterOf: view.originalTopic,
      detectedBy: view.detectedBy,
      partitions: view.partitions,
    },
  };
}
