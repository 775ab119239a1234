// What each kind of channel receives for an alert transition.
import crypto from "node:crypto";
import type { Labels, Severity, Transition } from "./evaluate";

export interface AlertEvent {
  transition: Transition;
  ruleName: string;
  metric: string;
  severity: Severity;
  summary: string;
  /** Where to look: the dashboard's page for the queue or host. */
  url: string | null;
}

function labelSet(event: AlertEvent): Record<string, string> {
  const labels: Record<string, string> = { alertname: event.ruleName, severity: event.severity, metric: event.metric };
  for (const [key, value] of Object.entries(event.transition.labels as Labels)) if (value) labels[key] = value;
  return labels;
}

/** Alertmanager's fingerprint: stable for the same label set. */
export function fingerprint(labels: Record<string, string>): string {
  const canonical = Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`)
    .join("\u0000");
  return crypto.createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

/** Varal's own JSON for the generic webhook (signed with Standard Webhooks headers). */
export function genericPayload(event: AlertEvent) {
  return {
    type: `alert.${event.transition.to}`,
    timestamp: new Date(event.transition.at).toISOString(),
    data: {
      rule: { id: event.transition.ruleId, name: event.ruleName, metric: event.metric, severity: event.severity },
      labels: event.transition.labels,
      value: event.transition.value,
      summary: event.summary,
      url: event.url,
    },
  };
}

/** The webhook payload Alertmanager sends (version 4), so tools that take it take Varal's. */
export function alertmanagerPayload(event: AlertEvent) {
  const labels = labelSet(event);
  const firing = event.transition.to === "firing";
  const at = new Date(event.transition.at).toISOString();
  return {
    version: "4",
    groupKey: `{}:{alertname="${event.ruleName}"}`,
    truncatedAlerts: 0,
    status: event.transition.to,
    receiver: "varal",
    groupLabels: { alertname: event.ruleName },
    commonLabels: labels,
    commonAnnotations: { summary: event.summary },
    externalURL: event.url ?? "",
    alerts: [
      {
        status: event.transition.to,
        labels,
        annotations: { summary: event.summary },
        startsAt: firing ? at : "0001-01-01T00:00:00Z",
        endsAt: firing ? "0001-01-01T00:00:00Z" : at,
        generatorURL: event.url ?? "",
        fingerprint: fingerprint(labels),
      },
    ],
  };
}

/** A Slack incoming-webhook message. */
export function slackPayload(event: AlertEvent) {
  const icon = event.transition.to === "firing" ? (event.severity === "critical" ? ":red_circle:" : ":large_orange_circle:") : ":white_check_mark:";
  const text = `${icon} *${event.transition.to.toUpperCase()}* ${event.ruleName}: ${event.summary}`;
  return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text: event.url ? `${text}\n<${event.url}|Open in Varal>` : text } }] };
}
