"use client";

import Link from "next/link";
import { StatusBadge } from "../components/StatusBadge";
import { queuePagePath } from "../lib/api";
import { formatAgo, formatBytes, formatCount, formatDuration, formatRate } from "../lib/format";
import { useBrokers, useHosts, useQueues } from "../lib/queries";

export default function OverviewPage() {
  const brokers = useBrokers();
  const troubled = useQueues({ sort: "trouble", limit: "15" });
  const troubledItems = (troubled.data?.items ?? []).filter((queue) => queue.status !== "ok");
  const hosts = useHosts();
  const troubledHosts = (hosts.data ?? []).filter((host) => host.status !== "ok");

  return (
    <>
      <h1>Overview</h1>
      <section aria-label="Brokers" className="grid" style={{ marginBottom: 16 }}>
        {brokers.data?.map((broker) => (
          <div key={broker.name} className="card" data-testid={`broker-${broker.name}`}>
            <div className="title">
              <span>
                {broker.name} <span className="muted small">{broker.kind}</span>
              </span>
              <StatusBadge status={broker.status} />
            </div>
            <div className="small muted">
              {broker.queueCount} queue(s) · polled {formatAgo(broker.lastPollAt)}
              {broker.lastPollMs !== null ? ` in ${broker.lastPollMs} ms` : ""}
            </div>
            {broker.lastError && <div className="small" style={{ color: "var(--danger)", marginTop: 4 }}>{broker.lastError}</div>}
            {broker.warnings.map((warning) => (
              <div key={warning} className="small" style={{ color: "var(--warning)", marginTop: 4 }}>
                {warning}
              </div>
            ))}
            {Array.isArray(broker.facts.exchangesWithoutAlternate) && broker.facts.exchangesWithoutAlternate.length > 0 && (
              <div className="small muted" style={{ marginTop: 4 }} title={(broker.facts.exchangesWithoutAlternate as string[]).join(", ")}>
                {broker.facts.exchangesWithoutAlternate.length} exchange(s) without an alternate exchange: a message no binding matches is dropped there.
              </div>
            )}
            {typeof broker.facts.usedMemoryBytes === "number" && (
              <div className="small muted" style={{ marginTop: 4 }}>
                Memory {formatBytes(broker.facts.usedMemoryBytes)}
                {typeof broker.facts.maxMemoryBytes === "number" ? ` of ${formatBytes(broker.facts.maxMemoryBytes)}` : " (no maxmemory)"} · policy{" "}
                {String(broker.facts.maxMemoryPolicy)}
              </div>
            )}
          </div>
        ))}
        {brokers.error && <div className="error">{brokers.error.message}</div>}
      </section>
      <section className="panel" aria-label="Queues in trouble">
        <h2>Queues in trouble</h2>
        {troubledItems.length === 0 ? (
          <p className="muted">{troubled.isLoading ? "Loading…" : "Nothing is backing up."}</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Queue</th>
                <th>Status</th>
                <th className="num">Depth</th>
                <th className="num">Lag</th>
                <th className="num">In</th>
                <th className="num">Out</th>
                <th className="num">DLQ</th>
              </tr>
            </thead>
            <tbody>
              {troubledItems.map((queue) => (
                <tr key={queue.id}>
                  <td>
                    <Link href={queuePagePath(queue.id)}>{queue.id}</Link>
                    {queue.statusReason && <div className="small muted">{queue.statusReason}</div>}
                  </td>
                  <td>
                    <StatusBadge status={queue.status} />
                  </td>
                  <td className="num">{formatCount(queue.depth)}</td>
                  <td className="num">{formatDuration(queue.lagSeconds)}</td>
                  <td className="num">{formatRate(queue.rateIn)}</td>
                  <td className="num">{formatRate(queue.rateOut)}</td>
                  <td className="num">{formatCount(queue.dlq?.depth)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {troubledHosts.length > 0 && (
        <section className="panel" aria-label="Hosts in trouble">
          <h2>Hosts in trouble</h2>
          <table>
            <tbody>
              {troubledHosts.map((host) => (
                <tr key={host.host}>
                  <td>
                    <Link href={`/hosts/${encodeURIComponent(host.host)}`}>{host.host}</Link>
                    {host.statusReason && <div className="small muted">{host.statusReason}</div>}
                  </td>
                  <td>
                    <StatusBadge status={host.status} />
                  </td>
                  <td className="small">reported {formatAgo(host.lastReportAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}
