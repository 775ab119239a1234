// Lag in seconds for a partition: how long ago the next record a group will read was
// written. Best from that record's own timestamp; when the read budget of a poll is spent,
// or the read fails, from the partition's recorded (end offset, time) samples, as
// kafka-lag-exporter does: the record at offset o was written while the end offset moved
// past o, so interpolating between the two samples around o dates it.

export interface EndSample {
  at: number;
  end: number;
}

export type TimeLagSource = "record" | "interpolated" | "lower-bound";

export interface TimeLag {
  seconds: number;
  source: TimeLagSource;
}

/** Adds a sample when the end offset moved (or none is kept yet), keeping at most `keep`. */
export function pushEndSample(samples: EndSample[], sample: EndSample, keep: number): EndSample[] {
  const last = samples[samples.length - 1];
  if (last && last.end === sample.end) return samples;
  const next = [...samples, sample];
  return next.length > keep ? next.slice(next.length - keep) : next;
}

/**
 * When was the record at `offset` written, judged from end-offset samples (oldest first)?
 * Null when it is at or past the newest end (nothing to wait for) or there is no sample.
 */
export function interpolateWrittenAt(samples: readonly EndSample[], offset: number): { at: number; source: TimeLagSource } | null {
  if (samples.length === 0) return null;
  const newest = samples[samples.length - 1];
  if (offset >= newest.end) return null;
  // Before the oldest sample, all that is known is that it is older than that sample.
  if (offset < samples[0].end) return { at: samples[0].at, source: "lower-bound" };
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1];
    const after = samples[i];
    if (offset >= before.end && offset < after.end) {
      const fraction = (offset - before.end + 1) / (after.end - before.end);
      return { at: before.at + fraction * (after.at - before.at), source: "interpolated" };
    }
  }
  return null;
}

export function timeLag(writtenAt: number, nowMs: number, source: TimeLagSource): TimeLag {
  return { seconds: Math.max(0, (nowMs - writtenAt) / 1000), source };
}
