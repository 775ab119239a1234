"use client";
// Rules: a metric, a condition held for a while, the labels it watches, the channels it notifies.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/api";
import { ErrorLine, InlineForm } from "../InlineForm";
import { keys } from "../../lib/queries";
import { filledLabels, labelsText, type Channel, type Rule } from "./model";

const METRICS = [
  "lagSeconds",
  "depth",
  "dlqDepth",
  "dlqGrowthPerMinute",
  "lagMessages",
  "inflight",
  "delayed",
  "consumers",
  "rateIn",
  "rateOut",
  "brokerUnreachable",
  "ringOccupancyRatio",
  "agentSilent",
  "orphanedSegments",
];

export function AlertRules({ admin }: { admin: boolean }) {
  const client = useQueryClient();
  const rules = useQuery({ queryKey: keys.alertRules, queryFn: () => api<Rule[]>("/api/alerts/rules") });
  const channels = useQuery({ queryKey: keys.alertChannels, queryFn: () => api<Channel[]>("/api/alerts/channels") });
  const [rule, setRule] = useState({ name: "", metric: "lagSeconds", broker: "", queue: "", host: "", op: ">", threshold: "300", for: "5m", severity: "warning", channel: "" });
  const changed = () => {
    for (const key of [keys.alerts, keys.alertRules]) void client.invalidateQueries({ queryKey: key });
  };
  const createRule = useMutation({
    mutationFn: () =>
      api("/api/alerts/rules", {
        method: "POST",
        body: {
          name: rule.name,
          metric: rule.metric,
          match: filledLabels({ broker: rule.broker, queue: rule.queue, host: rule.host }),
          op: rule.op,
          threshold: Number(rule.threshold),
          for: rule.for,
          severity: rule.severity,
          channels: rule.channel ? [rule.channel] : [],
        },
      }),
    onSuccess: changed,
  });
  const deleteRule = useMutation({ mutationFn: (id: string) => api(`/api/alerts/rules/${id}`, { method: "DELETE" }), onSuccess: changed });
  // A rule is replaced whole (PUT): the same fields, the other way round.
  const toggleRule = useMutation({
    mutationFn: (entry: Rule) => api(`/api/alerts/rules/${entry.id}`, { method: "PUT", body: { ...entry, enabled: !entry.enabled } }),
    onSuccess: changed,
  });
  const error = createRule.error ?? deleteRule.error ?? toggleRule.error;
  return (
    <section className="panel" aria-label="Rules">
      <h2>Rules</h2>
      <ErrorLine error={error} />
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Condition</th>
            <th>Match</th>
            <th>Channels</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rules.data?.map((entry) => (
            <tr key={entry.id}>
              <td>
                {entry.name} <span className="small muted">{entry.severity}</span>
                {!entry.enabled && <span className="small muted"> (off)</span>}
              </td>
              <td className="mono small">
                {entry.metric} {entry.op} {entry.threshold} for {entry.for}
              </td>
              <td className="mono small">{labelsText(entry.match) || "everything"}</td>
              <td className="small">{entry.channels.map((id) => channels.data?.find((candidate) => candidate.id === id)?.name ?? id).join(", ") || "—"}</td>
              <td>
                {admin && (
                  <span className="row">
                    <button onClick={() => toggleRule.mutate(entry)}>{entry.enabled ? "Turn off" : "Turn on"}</button>
                    <button onClick={() => deleteRule.mutate(entry.id)}>Delete</button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {admin && (
        <InlineForm onSubmit={() => createRule.mutate()}>
          <input aria-label="Rule name" placeholder="name" value={rule.name} onChange={(event) => setRule({ ...rule, name: event.target.value })} />
          <select aria-label="Metric" value={rule.metric} onChange={(event) => setRule({ ...rule, metric: event.target.value })}>
            {METRICS.map((metric) => (
              <option key={metric}>{metric}</option>
            ))}
          </select>
          <select aria-label="Operator" value={rule.op} onChange={(event) => setRule({ ...rule, op: event.target.value })}>
            {[">", ">=", "<", "<=", "=="].map((op) => (
              <option key={op}>{op}</option>
            ))}
          </select>
          <input aria-label="Threshold" size={6} value={rule.threshold} onChange={(event) => setRule({ ...rule, threshold: event.target.value })} />
          <input aria-label="For" size={4} value={rule.for} onChange={(event) => setRule({ ...rule, for: event.target.value })} />
          <input aria-label="Broker" placeholder="broker (any)" size={10} value={rule.broker} onChange={(event) => setRule({ ...rule, broker: event.target.value })} />
          <input aria-label="Queue" placeholder="queue (any)" size={12} value={rule.queue} onChange={(event) => setRule({ ...rule, queue: event.target.value })} />
          <input aria-label="Host" placeholder="host (any)" size={10} value={rule.host} onChange={(event) => setRule({ ...rule, host: event.target.value })} />
          <select aria-label="Severity" value={rule.severity} onChange={(event) => setRule({ ...rule, severity: event.target.value })}>
            <option>critical</option>
            <option>warning</option>
            <option>info</option>
          </select>
          <select aria-label="Channel" value={rule.channel} onChange={(event) => setRule({ ...rule, channel: event.target.value })}>
            <option value="">no channel</option>
            {channels.data?.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.name}
              </option>
            ))}
          </select>
          <button className="primary" type="submit" disabled={createRule.isPending}>
            Add rule
          </button>
        </InlineForm>
      )}
    </section>
  );
}
