"use client";

import Link from "next/link";
import { useParams } from "next/navigation";
import { useState } from "react";
import { Bar, BarChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { ActionPanel } from "../../../../components/ActionPanel";
import { KafkaPartitions } from "../../../../components/KafkaPartitions";
import { MessageBrowser } from "../../../../components/MessageBrowser";
import { MetricChart } from "../../../../components/MetricChart";
import { StatusBadge } from "../../../../components/StatusBadge";
import { queuePagePath } from "../../../../lib/api";
import { formatAgo, formatCount, formatDuration, formatRate } from "../../../../lib/format";
import { useMe, useQueue } from "../../../../lib/queries";

const RANGES = ["15m", "1h", "6h", "24h"];

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default function QueuePage() {
  const params = useParams<{ broker: string; name: string }>();
  const id = `${decodeSegment(params.broker)}/${decodeSegment(params.name)}`;
  const queue = useQueue(id);
  const me = useMe();
  const [range, setRange] = useState("15m");
  const [picked, setPicked] = useState<string | null>(null);

  if (queue.error) {
    return (
      <>
        <h1>{id}</h1>
        <div className="error">{queue.error.message}</div>
      </>
    );
  }
  if (!queue.data) return <p className="muted">Loading…</p>;
  const q = queue.data;
  const stats: Array<[string, string]> = [
    ["Depth", formatCount(q.depth)],
    ["In flight", formatCount(q.inflight)],
    ["Delayed", formatCount(q.delayed)],
    ["Consumers", formatCount(q.consumers)],
    ["In", formatRate(q.rateIn)],
    ["Out", formatRate(q.rateOut)],
    ["Lag", formatDuration(q.lagSeconds)],
    ["Lag (messages)", formatCount(q.lagMessages)],
  ];
  return (
    <>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 data-testid="queue-title">{q.id}</h1>
        <div className="row">
          <StatusBadge status={q.status} />
          <span className="small muted">
            {q.kind} {q.type} · observed {formatAgo(q.observedAt)}
            {q.stale ? " (stale: broker unreachable)" : ""}
          </span>
        </div>
      </div>
      {q.statusReason && <p className="note">{q.statusReason}</p>}
      {Array.isArray(q.facts.warnings) &&
        (q.facts.warnings as string[]).map((warning) => (
          <p key={warning} className="note" style={{ borderColor: "var(--warning)" }}>
            {warning}
          </p>
        ))}
      {q.facts.approximate === true && (
        <p className="note small">SQS counts are approximate and can take about a minute to settle after a change.</p>
      )}
      {typeof q.purgeCooldownSeconds === "number" && q.purgeCooldownSeconds > 0 && (
        <p className="note small">Purged recently: SQS allows the next purge in {q.purgeCooldownSeconds} s.</p>
      )}
      <section className="panel stats" aria-label="Figures">
        {stats.map(([label, value]) => (
          <div key={label} className="stat">
            <div className="label">{label}</div>
            <div className="value">{value}</div>
          </div>
        ))}
      </section>
      {(q.dlq || q.sources.length > 0) && (
        <section className="panel">
          {q.dlq && (
            <p>
              Dead letters go to <Link href={queuePagePath(q.dlq.id)}>{q.dlq.id}</Link> ({formatCount(q.dlq.depth)} waiting).
            </p>
          )}
          {q.sources.length > 0 && (
            <p>
              Dead-letter queue of:{" "}
              {q.sources.map((source) => (
                <Link key={source.id} href={queuePagePath(source.id)} style={{ marginRight: 8 }}>
                  {source.id}
                </Link>
              ))}
            </p>
          )}
        </section>
      )}
      <div className="tabs" role="group" aria-label="Chart range">
        {RANGES.map((value) => (
          <button key={value} aria-pressed={range === value} onClick={() => setRange(value)}>
            {value}
          </button>
        ))}
      </div>
      <section className="grid" style={{ gridTemplateColumns: "repeat(auto-fill, minmax(340px, 1fr))", marginBottom: 16 }}>
        <MetricChart queueId={q.id} metric="depth" range={range} />
        <MetricChart queueId={q.id} metric="lagSeconds" range={range} />
        <MetricChart queueId={q.id} metric="rateIn" range={range} />
        <MetricChart queueId={q.id} metric="rateOut" range={range} />
      </section>
      {Array.isArray(q.facts.priorityBands) && q.facts.priorityBands.length > 0 && (
        <section className="panel" aria-label="Priority bands">
          <h2>Waiting by priority (0 is served first)</h2>
          <div style={{ height: 160 }} data-testid="priority-bands">
            <ResponsiveContainer width="100%" height="100%">
              <BarChart data={q.facts.priorityBands as Array<{ priority: number; depth: number }>} margin={{ top: 8, right: 8, bottom: 0, left: -10 }}>
                <XAxis dataKey="priority" stroke="var(--muted)" fontSize={11} />
                <YAxis stroke="var(--muted)" fontSize={11} allowDecimals={false} />
                <Tooltip contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)" }} />
                <Bar dataKey="depth" fill="var(--chart-1)" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
        </section>
      )}
      {q.kind === "kafka" && Array.isArray(q.facts.partitions) && <KafkaPartitions queue={q} />}
      <section className="panel" aria-label="Actions">
        <h2>Actions</h2>
        <ActionPanel queue={q} canAct={me.data?.role === "operator" || me.data?.role === "admin"} pickedMessage={picked} />
      </section>
      {q.browsable && (
        <section className="panel" aria-label="Messages">
          <h2>{q.facts.deadLetterOf !== undefined || q.sources.length > 0 ? "Dead letters" : "Messages"}</h2>
          <MessageBrowser queue={q} onPick={q.actions.includes("reprioritise") ? setPicked : undefined} />
        </section>
      )}
      <section className="panel" aria-label="Broker facts">
        <h2>Broker facts</h2>
        <pre className="payload" style={{ maxHeight: 320 }}>{JSON.stringify(q.facts, null, 2)}</pre>
      </section>
    </>
  );
}
