// Pure alert evaluation: each rule against each matching series, with a "for" duration
// before firing and a resolve hold (hysteresis) before resolving. Returns the new states
// and the transitions to notify; nothing here reads a clock, a store or a network.

export const ALERT_OPS = [">", ">=", "<", "<=", "=="] as const;
export type AlertOp = (typeof ALERT_OPS)[number];
export type AlertState = "inactive" | "pending" | "firing" | "resolved";
export type Severity = "critical" | "warning" | "info";

export interface Labels {
  broker?: string;
  queue?: string;
  group?: string;
  host?: string;
  segment?: string;
}

/** True when a silence's labels all equal the alert's: an empty match silences everything. */
export function matchesSilence(match: Labels, labels: Labels): boolean {
  return Object.entries(match).every(([key, value]) => labels[key as keyof Labels] === value);
}

export interface AlertRule {
  id: string;
  name: string;
  metric: string;
  match: Labels;
  op: AlertOp;
  threshold: number;
  forSeconds: number;
  /** How long the condition must stay false before a firing alert resolves. */
  resolveAfterSeconds: number;
  severity: Severity;
  enabled: boolean;
}

/**
 * A series key joins its labels with the ASCII unit separator: it never appears in a queue
 * or broker name written by a person, and, unlike NUL, PostgreSQL text can store it.
 */
export function seriesKey(...parts: Array<string | undefined>): string {
  return parts.map((part) => part ?? "").join("\u001f");
}

export interface Series {
  /** Unique per metric: the labels, joined. */
  key: string;
  labels: Labels;
  value: number | null;
}

export interface SeriesState {
  state: AlertState;
  /** When the condition last became true (pending since) or false (clearing since). */
  since: number;
  value: number | null;
  labels: Labels;
}

export interface Transition {
  ruleId: string;
  seriesKey: string;
  labels: Labels;
  from: AlertState;
  to: "firing" | "resolved";
  value: number | null;
  at: number;
}

export function compare(value: number, op: AlertOp, threshold: number): boolean {
  switch (op) {
    case ">":
      return value > threshold;
    case ">=":
      return value >= threshold;
    case "<":
      return value < threshold;
    case "<=":
      return value <= threshold;
    case "==":
      return value === threshold;
  }
}

/** Series of one metric indexed by the labels rules match on, built once per cycle. */
export class SeriesIndex {
  private readonly byMetric = new Map<string, { all: Series[]; byBroker: Map<string, Series[]>; byKey: Map<string, Series[]> }>();

  constructor(series: Map<string, Series[]>) {
    for (const [metric, list] of series) {
      const byBroker = new Map<string, Series[]>();
      const byKey = new Map<string, Series[]>();
      for (const entry of list) {
        if (entry.labels.broker) byBroker.set(entry.labels.broker, [...(byBroker.get(entry.labels.broker) ?? []), entry]);
        const queueKey = seriesKey(entry.labels.broker, entry.labels.queue ?? entry.labels.host);
        byKey.set(queueKey, [...(byKey.get(queueKey) ?? []), entry]);
      }
      this.byMetric.set(metric, { all: list, byBroker, byKey });
    }
  }

  matching(metric: string, match: Labels): Series[] {
    const index = this.byMetric.get(metric);
    if (!index) return [];
    const candidates =
      match.broker && (match.queue || match.host)
        ? (index.byKey.get(seriesKey(match.broker, match.queue ?? match.host)) ?? [])
        : match.broker
          ? (index.byBroker.get(match.broker) ?? [])
          : index.all;
    // The index answers exactly when nothing else is asked: no copy, no filter.
    const exact = !match.group && !match.segment && (match.broker ? true : !match.queue && !match.host);
    if (exact) return candidates;
    return candidates.filter(
      (series) =>
        (!match.queue || series.labels.queue === match.queue) &&
        (!match.group || series.labels.group === match.group) &&
        (!match.host || series.labels.host === match.host) &&
        (!match.segment || series.labels.segment === match.segment),
    );
  }
}

/**
 * One evaluation of one rule. `states` holds the rule's series that are not inactive (an
 * inactive series has no entry, so a rule over thousands of quiet queues keeps nothing) and
 * is updated in place; a series no longer present counts as "condition false".
 */
export function evaluateRule(rule: AlertRule, series: Series[], states: Map<string, SeriesState>, now: number): Transition[] {
  const transitions: Transition[] = [];
  const visited = states.size > 0 ? new Set<string>() : null;
  const step = (key: string, labels: Labels, value: number | null, previous: SeriesState | undefined, active: boolean) => {
    if (active) {
      if (!previous || previous.state === "resolved") {
        previous = { state: "pending", since: now, value, labels };
        states.set(key, previous);
      } else {
        previous.value = value;
        previous.labels = labels;
        // "since" of a firing alert is the last time its condition held.
        if (previous.state === "firing") previous.since = now;
      }
      if (previous.state === "pending" && now - previous.since >= rule.forSeconds * 1000) {
        transitions.push({ ruleId: rule.id, seriesKey: key, labels, from: "pending", to: "firing", value, at: now });
        states.set(key, { state: "firing", since: now, value, labels });
      }
    } else if (previous?.state === "pending") {
      states.delete(key);
    } else if (previous?.state === "firing") {
      previous.value = value;
      if (now - previous.since >= rule.resolveAfterSeconds * 1000) {
        transitions.push({ ruleId: rule.id, seriesKey: key, labels, from: "firing", to: "resolved", value, at: now });
        states.set(key, { state: "resolved", since: now, value, labels });
      }
    } else if (previous) {
      previous.value = value;
    }
  };
  for (const entry of series) {
    const previous = states.get(entry.key);
    const active = rule.enabled && entry.value !== null && compare(entry.value, rule.op, rule.threshold);
    if (!previous && !active) continue;
    visited?.add(entry.key);
    step(entry.key, entry.labels, entry.value, previous, active);
  }
  if (visited) for (const [key, state] of states) if (!visited.has(key)) step(key, state.labels, null, state, false);
  return transitions;
}

/** Parses "30s", "5m", "2h", "1d" into seconds; null when it is not a duration. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)(s|m|h|d)$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as "s" | "m" | "h" | "d"];
}
