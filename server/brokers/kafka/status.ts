// Burrow's rules, judged per partition over a sliding window of observations, the group
// taking its worst partition. Kafka's OffsetFetch carries no commit time, so "no commit"
// is read as "the committed offset did not move", and whether a consumer is still there
// comes from the group's assignment: a partition that no live member owns has stopped
// (STOP); one whose owner is alive but not moving is stuck (STALL).
import type { QueueStatus } from "../types";

export type PartitionStatus = "OK" | "WARN" | "STALL" | "STOP" | "REWIND";

export interface OffsetSample {
  at: number;
  committed: number;
  lag: number;
}

export interface PartitionVerdict {
  status: PartitionStatus;
  /** Which rule fired, in words an operator reads at 3 a.m. */
  rule: string;
}

/** Worse first: the group takes the status of its worst partition. */
const RANK: Record<PartitionStatus, number> = { STOP: 4, STALL: 3, REWIND: 2, WARN: 1, OK: 0 };

export const VARAL_STATUS: Record<PartitionStatus, QueueStatus> = { OK: "ok", WARN: "warning", STALL: "stalled", STOP: "stopped", REWIND: "warning" };

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

/**
 * Judges one partition. `samples` are oldest first and hold at most the window; a window
 * not yet full is not judged (as Burrow), except for a rewind, which one step shows.
 */
export function judgePartition(samples: readonly OffsetSample[], window: number, owner: string | null): PartitionVerdict {
  for (let i = 1; i < samples.length; i++) {
    if (samples[i].committed < samples[i - 1].committed) {
      return { status: "REWIND", rule: `REWIND: the committed offset went back from ${samples[i - 1].committed} to ${samples[i].committed}` };
    }
  }
  const last = samples[samples.length - 1];
  if (!last) return { status: "OK", rule: "no observation yet" };
  if (last.lag === 0) return { status: "OK", rule: "OK: caught up (lag 0)" };
  if (samples.length < window) return { status: "OK", rule: `OK: watching the trend (${samples.length} of ${window} observations)` };
  const first = samples[0];
  const span = last.at - first.at;
  if (first.committed === last.committed) {
    if (owner === null) {
      return {
        status: "STOP",
        rule: `STOP: no commit for ${seconds(span)} (the whole window) while ${last.lag} message(s) wait, and no live member owns the partition`,
      };
    }
    return {
      status: "STALL",
      rule: `STALL: committed offset stuck at ${last.committed} for ${seconds(span)} while ${last.lag} message(s) wait, though ${owner} owns the partition`,
    };
  }
  const neverDecreased = samples.every((sample, i) => i === 0 || sample.lag >= samples[i - 1].lag);
  if (neverDecreased && last.lag > first.lag) {
    return { status: "WARN", rule: `WARN: lag never decreased over ${seconds(span)} (from ${first.lag} to ${last.lag}): the consumer is slower than its producers` };
  }
  return { status: "OK", rule: "OK: committing and keeping up" };
}

/** The worst of the partitions' verdicts, and on which partitions it fired. */
export function worstVerdict(verdicts: ReadonlyArray<PartitionVerdict & { partition: number }>): (PartitionVerdict & { partitions: number[] }) | null {
  if (verdicts.length === 0) return null;
  const worst = verdicts.reduce((a, b) => (RANK[b.status] > RANK[a.status] ? b : a));
  const partitions = verdicts.filter((verdict) => verdict.status === worst.status).map((verdict) => verdict.partition);
  return { status: worst.status, rule: worst.rule, partitions };
}

/** Keeps the last `window` samples of a partition. */
export function pushSample(samples: OffsetSample[], sample: OffsetSample, window: number): OffsetSample[] {
  const next = [...samples, sample];
  return next.length > window ? next.slice(next.length - window) : next;
}
