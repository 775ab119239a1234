// What the Alerts page shows, as the /api/alerts routes return it.
export interface ActiveAlert {
  ruleId: string;
  rule: string | null;
  severity: string | null;
  metric: string | null;
  labels: Record<string, string>;
  state: string;
  /** A silence in force matches it: its transitions reach no channel. */
  silenced: boolean;
  since: string;
  value: number | null;
}

export interface Rule {
  id: string;
  name: string;
  metric: string;
  match: Record<string, string>;
  op: string;
  threshold: number;
  for: string;
  resolveAfter: string;
  severity: string;
  channels: string[];
  enabled: boolean;
}

export interface Channel {
  id: string;
  name: string;
  kind: string;
  url: string;
  hasSecret: boolean;
}

export interface Silence {
  id: string;
  match: Record<string, string>;
  endsAt: string;
  comment: string | null;
  createdBy: string;
}

export interface Delivery {
  id: string;
  event: string;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  summary: string | null;
}

export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .filter(([, value]) => value)
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
}

/** The labels a form filled in, without the empty ones. */
export function filledLabels(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([, value]) => value));
}
