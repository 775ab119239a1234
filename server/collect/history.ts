// Per-queue history for charts: the last 20 minutes at poll resolution, and 24 hours of
// one-minute samples. Typed arrays keep a thousand queues within a few tens of MB.

export const HISTORY_METRICS = ["depth", "lagMessages", "lagSeconds", "rateIn", "rateOut", "dlqDepth"] as const;
export type HistoryMetric = (typeof HISTORY_METRICS)[number];
export type HistorySample = Record<HistoryMetric, number | null>;

const METRIC_COUNT = HISTORY_METRICS.length;
const RAW_CAPACITY = 512;
const RAW_SPAN_MS = 20 * 60_000;
const MINUTE_MS = 60_000;
export const MINUTES_KEPT = 24 * 60;

export const HISTORY_RANGES = { "15m": 15 * MINUTE_MS, "1h": 3600_000, "6h": 6 * 3600_000, "24h": 24 * 3600_000 } as const;
export type HistoryRange = keyof typeof HISTORY_RANGES;
/** A chart never needs more points than this: longer ranges are thinned on read. */
const MAX_POINTS = 360;

class QueueHistory {
  readonly rawTimes = new Float64Array(RAW_CAPACITY);
  readonly rawValues = new Float32Array(RAW_CAPACITY * METRIC_COUNT);
  rawNext = 0;
  rawCount = 0;
  /** Minute number (unix ms / 60 000) held by each slot; 0 means empty. */
  readonly minuteOf = new Int32Array(MINUTES_KEPT);
  readonly minuteValues = new Float32Array(MINUTES_KEPT * METRIC_COUNT).fill(Number.NaN);
  /** The newest minute already handed out for persistence. */
  persistedMinute = 0;

  record(atMs: number, sample: HistorySample): void {
    const slot = this.rawNext;
    this.rawTimes[slot] = atMs;
    HISTORY_METRICS.forEach((metric, index) => {
      this.rawValues[slot * METRIC_COUNT + index] = sample[metric] ?? Number.NaN;
    });
    this.rawNext = (slot + 1) % RAW_CAPACITY;
    this.rawCount = Math.min(this.rawCount + 1, RAW_CAPACITY);
    this.setMinute(Math.floor(atMs / MINUTE_MS), sample);
  }

  /** The last sample within a minute stands for that minute. */
  setMinute(minute: number, sample: HistorySample): void {
    const slot = minute % MINUTES_KEPT;
    this.minuteOf[slot] = minute;
    HISTORY_METRICS.forEach((metric, index) => {
      this.minuteValues[slot * METRIC_COUNT + index] = sample[metric] ?? Number.NaN;
    });
  }

  rawPoints(metricIndex: number, sinceMs: number): Array<[number, number | null]> {
    const points: Array<[number, number | null]> = [];
    for (let i = this.rawCount; i > 0; i--) {
      const slot = (this.rawNext - i + RAW_CAPACITY) % RAW_CAPACITY;
      const at = this.rawTimes[slot];
      if (at < sinceMs) continue;
      points.push([at, valueOrNull(this.rawValues[slot * METRIC_COUNT + metricIndex])]);
    }
    return points;
  }

  minutePoints(metricIndex: number, fromMinute: number, toMinute: number): Array<[number, number | null]> {
    const points: Array<[number, number | null]> = [];
    for (let minute = fromMinute; minute <= toMinute; minute++) {
      const slot = minute % MINUTES_KEPT;
      if (this.minuteOf[slot] !== minute) continue;
      points.push([minute * MINUTE_MS, valueOrNull(this.minuteValues[slot * METRIC_COUNT + metricIndex])]);
    }
    return points;
  }

  minuteSample(minute: number): HistorySample | null {
    const slot = minute % MINUTES_KEPT;
    if (this.minuteOf[slot] !== minute) return null;
    const sample = {} as HistorySample;
    HISTORY_METRICS.forEach((metric, index) => {
      sample[metric] = valueOrNull(this.minuteValues[slot * METRIC_COUNT + index]);
    });
    return sample;
  }
}

function valueOrNull(value: number): number | null {
  return Number.isNaN(value) ? null : value;
}

function thin(points: Array<[number, number | null]>): Array<[number, number | null]> {
  if (points.length <= MAX_POINTS) return points;
  const step = Math.ceil(points.length / MAX_POINTS);
  return points.filter((_, index) => index % step === step - 1 || index === points.length - 1);
}

export interface PersistedMinute {
  queueId: string;
  at: Date;
  sample: HistorySample;
}

export class HistoryStore {
  private readonly queues = new Map<string, QueueHistory>();

  record(queueId: string, atMs: number, sample: HistorySample): void {
    let history = this.queues.get(queueId);
    if (!history) {
      history = new QueueHistory();
      this.queues.set(queueId, history);
    }
    history.record(atMs, sample);
  }

  points(queueId: string, metric: HistoryMetric, range: HistoryRange, nowMs = Date.now()): Array<[number, number | null]> {
    const history = this.queues.get(queueId);
    if (!history) return [];
    const metricIndex = HISTORY_METRICS.indexOf(metric);
    const span = HISTORY_RANGES[range];
    if (span <= RAW_SPAN_MS) return history.rawPoints(metricIndex, nowMs - span);
    const toMinute = Math.floor(nowMs / MINUTE_MS);
    return thin(history.minutePoints(metricIndex, toMinute - Math.floor(span / MINUTE_MS), toMinute));
  }

  /** Minutes that are over and not yet persisted, for every queue. */
  takeCompletedMinutes(nowMs = Date.now()): PersistedMinute[] {
    const currentMinute = Math.floor(nowMs / MINUTE_MS);
    const out: PersistedMinute[] = [];
    for (const [queueId, history] of this.queues) {
      const from = Math.max(history.persistedMinute + 1, currentMinute - MINUTES_KEPT + 1);
      for (let minute = from; minute < currentMinute; minute++) {
        const sample = history.minuteSample(minute);
        if (sample) out.push({ queueId, at: new Date(minute * MINUTE_MS), sample });
      }
      history.persistedMinute = currentMinute - 1;
    }
    return out;
  }

  /** Restores persisted minutes after a restart; they are not persisted again. */
  restore(rows: PersistedMinute[]): void {
    for (const row of rows) {
      let history = this.queues.get(row.queueId);
      if (!history) {
        history = new QueueHistory();
        this.queues.set(row.queueId, history);
      }
      const minute = Math.floor(row.at.getTime() / MINUTE_MS);
      history.setMinute(minute, row.sample);
      history.persistedMinute = Math.max(history.persistedMinute, minute);
    }
  }

  forget(queueId: string): void {
    this.queues.delete(queueId);
  }

  get size(): number {
    return this.queues.size;
  }
}
