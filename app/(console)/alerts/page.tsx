"use client";
// Alerts: what fires now and what resolved lately, the rules, the channels they notify,
// deliveries (with the dead ones to redeliver), and silences. Changes need the admin role.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { StatusBadge } from "../../components/StatusBadge";
import { api } from "../../lib/api";
import { formatAgo } from "../../lib/format";
import { POLL, keys, useMe } from "../../lib/queries";

interface ActiveAlert {
  ruleId: string;
  rule: string | null;
  severity: string | null;
  metric: string | null;
  labels: Record<string, string>;
  state: string;
  since: string;
  value: number | null;
}
interface Rule {
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
interface Channel {
  id: string;
  name: string;
  kind: string;
  url: string;
  hasSecret: boolean;
}
interface Silence {
  id: string;
  match: Record<string, string>;
  endsAt: string;
  comment: string | null;
  createdBy: string;
}

const SILENCE_DURATIONS: Record<string, number> = { "1h": 3600_000, "4h": 4 * 3600_000, "1d": 24 * 3600_000, "1w": 7 * 24 * 3600_000 };

interface Delivery {
  id: string;
  event: string;
  state: string;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  summary: string | null;
}

const STATE_TO_STATUS: Record<string, string> = { firing: "stopped", pending: "warning", resolved: "ok" };
const METRICS = ["lagSeconds", "depth", "dlqDepth", "dlqGrowthPerMinute", "lagMessages", "inflight", "delayed", "consumers", "rateIn", "rateOut", "brokerUnreachable", "ringOccupancyRatio", "agentSilent", "orphanedSegments"];

function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .filter(([, value]) => value)
    .map(([key, value]) => `${key}=${value}`)
    .join(" ");
}

export default function AlertsPage() {
  const client = useQueryClient();
  const me = useMe();
  const admin = me.data?.role === "admin";
  const active = useQuery({ queryKey: keys.alerts, queryFn: () => api<ActiveAlert[]>("/api/alerts"), refetchInterval: POLL.snapshot });
  const rules = useQuery({ queryKey: keys.alertRules, queryFn: () => api<Rule[]>("/api/alerts/rules") });
  const channels = useQuery({ queryKey: keys.alertChannels, queryFn: () => api<Channel[]>("/api/alerts/channels") });
  const silences = useQuery({ queryKey: keys.silences, queryFn: () => api<Silence[]>("/api/alerts/silences"), refetchInterval: POLL.list });
  const [silence, setSilence] = useState({ broker: "", queue: "", duration: "1h", comment: "" });
  const createSilence = useMutation({
    mutationFn: () =>
      api("/api/alerts/silences", {
        method: "POST",
        body: {
          match: Object.fromEntries(Object.entries({ broker: silence.broker, queue: silence.queue }).filter(([, value]) => value)),
          endsAt: new Date(Date.now() + SILENCE_DURATIONS[silence.duration]).toISOString(),
          comment: silence.comment || undefined,
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.silences }),
  });
  const deliveries = useQuery({ queryKey: keys.deliveries, queryFn: () => api<Delivery[]>("/api/alerts/deliveries?limit=50"), refetchInterval: POLL.list });

  const [rule, setRule] = useState({ name: "", metric: "lagSeconds", broker: "", queue: "", host: "", op: ">", threshold: "300", for: "5m", severity: "warning", channel: "" });
  const [channel, setChannel] = useState({ name: "", kind: "webhook", url: "", secret: "" });
  const invalidate = () => {
    for (const key of [keys.alerts, keys.alertRules, keys.alertChannels, keys.deliveries]) void client.invalidateQueries({ queryKey: key });
  };
  const createRule = useMutation({
    mutationFn: () =>
      api("/api/alerts/rules", {
        method: "POST",
        body: {
          name: rule.name,
          metric: rule.metric,
          match: Object.fromEntries(Object.entries({ broker: rule.broker, queue: rule.queue, host: rule.host }).filter(([, value]) => value)),
          op: rule.op,
          threshold: Number(rule.threshold),
          for: rule.for,
          severity: rule.severity,
          channels: rule.channel ? [rule.channel] : [],
        },
      }),
    onSuccess: invalidate,
  });
  const deleteRule = useMutation({ mutationFn: (id: string) => api(`/api/alerts/rules/${id}`, { method: "DELETE" }), onSuccess: invalidate });
  const createChannel = useMutation({
    mutationFn: () => api("/api/alerts/channels", { method: "POST", body: { ...channel, secret: channel.secret || undefined } }),
    onSuccess: invalidate,
  });
  const testChannel = useMutation({ mutationFn: (id: string) => api(`/api/alerts/channels/${id}/test`, { method: "POST" }), onSuccess: invalidate });
  const redeliver = useMutation({ mutationFn: (id: string) => api(`/api/alerts/deliveries/${id}/redeliver`, { method: "POST" }), onSuccess: invalidate });
  const error = [createSilence.error, createRule.error, deleteRule.error, createChannel.error, testChannel.error, redeliver.error].find(Boolean);

  return (
    <>
      <h1>Alerts</h1>
      {error && <div className="error" data-testid="error">{error.message}</div>}
      <section className="panel" aria-label="Firing and recent alerts">
        <h2>Firing and recently resolved</h2>
        {active.data?.length === 0 && <p className="muted">Nothing fires.</p>}
        {active.data && active.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>State</th>
                <th>Rule</th>
                <th>Where</th>
                <th className="num">Value</th>
                <th>Since</th>
              </tr>
            </thead>
            <tbody>
              {active.data.map((alert) => (
                <tr key={`${alert.ruleId}-${labelsText(alert.labels)}`}>
                  <td>
                    <StatusBadge status={STATE_TO_STATUS[alert.state] ?? "ok"} title={alert.state} /> <span className="small">{alert.state}</span>
                  </td>
                  <td>
                    {alert.rule} <span className="small muted">{alert.severity}</span>
                  </td>
                  <td className="small mono">{labelsText(alert.labels)}</td>
                  <td className="num">{alert.value ?? "—"}</td>
                  <td className="small">{formatAgo(alert.since)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="panel" aria-label="Rules">
        <h2>Rules</h2>
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
                </td>
                <td className="mono small">
                  {entry.metric} {entry.op} {entry.threshold} for {entry.for}
                </td>
                <td className="mono small">{labelsText(entry.match) || "everything"}</td>
                <td className="small">{entry.channels.map((id) => channels.data?.find((candidate) => candidate.id === id)?.name ?? id).join(", ") || "—"}</td>
                <td>{admin && <button onClick={() => deleteRule.mutate(entry.id)}>Delete</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {admin && (
          <form
            className="row"
            style={{ marginTop: 10 }}
            onSubmit={(event) => {
              event.preventDefault();
              createRule.mutate();
            }}
          >
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
          </form>
        )}
      </section>

      <section className="panel" aria-label="Channels">
        <h2>Channels</h2>
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Kind</th>
              <th>URL</th>
              <th>Signed</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {channels.data?.map((entry) => (
              <tr key={entry.id}>
                <td>{entry.name}</td>
                <td>{entry.kind}</td>
                <td className="mono small">{entry.url}</td>
                <td>{entry.hasSecret ? "yes" : "—"}</td>
                <td>{admin && <button onClick={() => testChannel.mutate(entry.id)}>Send a test</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {admin && (
          <form
            className="row"
            style={{ marginTop: 10 }}
            onSubmit={(event) => {
              event.preventDefault();
              createChannel.mutate();
            }}
          >
            <input aria-label="Channel name" placeholder="name" value={channel.name} onChange={(event) => setChannel({ ...channel, name: event.target.value })} />
            <select aria-label="Channel kind" value={channel.kind} onChange={(event) => setChannel({ ...channel, kind: event.target.value })}>
              <option value="webhook">signed JSON webhook</option>
              <option value="alertmanager">Alertmanager webhook</option>
              <option value="slack">Slack incoming webhook</option>
            </select>
            <input aria-label="Channel URL" placeholder="https://…" size={32} value={channel.url} onChange={(event) => setChannel({ ...channel, url: event.target.value })} />
            <input aria-label="Channel secret" placeholder="secret (whsec_…)" type="password" value={channel.secret} onChange={(event) => setChannel({ ...channel, secret: event.target.value })} />
            <button className="primary" type="submit" disabled={createChannel.isPending}>
              Add channel
            </button>
          </form>
        )}
      </section>

      <section className="panel" aria-label="Silences">
        <h2>Silences</h2>
        {silences.data?.length === 0 && <p className="muted small">No silence in force.</p>}
        {silences.data && silences.data.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Matching</th>
                <th>Ends</th>
                <th>By</th>
                <th>Why</th>
              </tr>
            </thead>
            <tbody>
              {silences.data.map((entry) => (
                <tr key={entry.id}>
                  <td className="mono small">{labelsText(entry.match)}</td>
                  <td className="small">{new Date(entry.endsAt).toLocaleString()}</td>
                  <td>{entry.createdBy}</td>
                  <td className="small">{entry.comment ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {admin && (
          <form
            className="row"
            style={{ marginTop: 10 }}
            onSubmit={(event) => {
              event.preventDefault();
              createSilence.mutate();
            }}
          >
            <input aria-label="Silence broker" placeholder="broker" size={10} value={silence.broker} onChange={(event) => setSilence({ ...silence, broker: event.target.value })} />
            <input aria-label="Silence queue" placeholder="queue" size={14} value={silence.queue} onChange={(event) => setSilence({ ...silence, queue: event.target.value })} />
            <select aria-label="Silence for" value={silence.duration} onChange={(event) => setSilence({ ...silence, duration: event.target.value })}>
              {Object.keys(SILENCE_DURATIONS).map((duration) => (
                <option key={duration}>{duration}</option>
              ))}
            </select>
            <input aria-label="Silence comment" placeholder="why" size={20} value={silence.comment} onChange={(event) => setSilence({ ...silence, comment: event.target.value })} />
            <button className="primary" type="submit" disabled={createSilence.isPending}>
              Silence
            </button>
          </form>
        )}
      </section>

      <section className="panel" aria-label="Deliveries">
        <h2>Deliveries</h2>
        <table>
          <thead>
            <tr>
              <th>Event</th>
              <th>State</th>
              <th className="num">Attempts</th>
              <th>Last error</th>
              <th>Created</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {deliveries.data?.map((delivery) => (
              <tr key={delivery.id}>
                <td className="small">
                  {delivery.event}
                  <div className="muted">{delivery.summary}</div>
                </td>
                <td>
                  <span className={`badge state-${delivery.state === "delivered" ? "succeeded" : delivery.state === "dead" ? "failed" : "running"}`}>{delivery.state}</span>
                </td>
                <td className="num">{delivery.attempts}</td>
                <td className="small">{delivery.lastError ?? ""}</td>
                <td className="small">{formatAgo(delivery.createdAt)}</td>
                <td>{admin && delivery.state === "dead" && <button onClick={() => redeliver.mutate(delivery.id)}>Redeliver</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
