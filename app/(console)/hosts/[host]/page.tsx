"use client";
// One host: its rings (occupancy, age, rates, latency, each participant's state), charts of
// the ring chosen, orphans with their cleanup, other segments, and kernel findings.
import { useMutation } from "@tanstack/react-query";
import { useParams, useRouter } from "next/navigation";
import { useState } from "react";
import { SegmentCleanup } from "../../../components/SegmentCleanup";
import { SeriesChart } from "../../../components/SeriesChart";
import { StatusBadge } from "../../../components/StatusBadge";
import { api } from "../../../lib/api";
import { formatAgo, formatBytes, formatCount, formatDuration, formatRate } from "../../../lib/format";
import { useHost, useMe } from "../../../lib/queries";
import type { RingReport } from "../../../lib/types";

function nanos(ns: number): string {
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  return `${(ns / 1e3).toFixed(1)} µs`;
}

function Role({ role }: { role: RingReport["producer"] }) {
  return (
    <span className="small">
      <StatusBadge status={role.state} /> {role.pid ? `pid ${role.pid}` : ""}
      {role.heartbeatAgeSeconds !== null && <span className="muted"> · beat {formatDuration(role.heartbeatAgeSeconds)} ago</span>}
    </span>
  );
}

export default function HostPage() {
  const params = useParams<{ host: string }>();
  const name = decodeURIComponent(params.host);
  const host = useHost(name);
  const me = useMe();
  const [chosen, setChosen] = useState<string | null>(null);
  const router = useRouter();
  const forget = useMutation({ mutationFn: () => api(`/api/hosts/${encodeURIComponent(name)}`, { method: "DELETE" }), onSuccess: () => router.push("/hosts") });
  if (host.error) {
    return (
      <>
        <h1>{name}</h1>
        <div className="error">{host.error.message}</div>
      </>
    );
  }
  if (!host.data) return <p className="muted">Loading…</p>;
  const h = host.data;
  const report = h.report;
  const canAct = me.data?.role === "operator" || me.data?.role === "admin";
  const selected = chosen ?? report.rings[0]?.segment ?? null;
  const series = selected ? h.history[selected] : undefined;
  return (
    <>
      <div className="row" style={{ justifyContent: "space-between" }}>
        <h1 data-testid="host-title">{h.host}</h1>
        <div className="row">
          <StatusBadge status={h.status} />
          <span className="small muted">
            agent {h.agentVersion} · reported {formatAgo(h.lastReportAt)} · every {h.intervalSeconds} s · scan {report.scanMs?.toFixed(1) ?? "?"} ms
          </span>
        </div>
      </div>
      {h.statusReason && <p className="note">{h.statusReason}</p>}
      {h.status === "silent" && me.data?.role === "admin" && (
        <p className="small">
          A machine that is gone for good can be forgotten: <button onClick={() => forget.mutate()}>Forget {h.host}</button> (its agent reappears if it reports again).
        </p>
      )}
      {forget.error && <div className="error">{forget.error.message}</div>}
      {h.kernelFindings.map((finding) => (
        <p key={finding.setting} className="note small" style={{ borderColor: "var(--warning)" }}>
          <code>
            {finding.setting} = {String(finding.value)}
          </code>
          : {finding.advice}
        </p>
      ))}

      <section className="panel" aria-label="Rings">
        <h2>Rings</h2>
        {report.rings.length === 0 ? (
          <p className="muted">No Varal ring on this host.</p>
        ) : (
          <table data-testid="rings">
            <thead>
              <tr>
                <th>Segment</th>
                <th className="num">Occupancy</th>
                <th className="num">Oldest</th>
                <th className="num">In / out</th>
                <th className="num">Latency p50 / p99</th>
                <th>Producer</th>
                <th>Consumer</th>
              </tr>
            </thead>
            <tbody>
              {report.rings.map((ring) => (
                <tr key={ring.segment} data-testid="ring-row" aria-selected={ring.segment === selected} onClick={() => setChosen(ring.segment)} style={{ cursor: "pointer" }}>
                  <td>
                    <span className="mono">{ring.segment}</span>
                    <div className="small muted">
                      {ring.name} · {formatBytes(ring.capacity)}
                      {ring.corrupt && <strong style={{ color: "var(--unreachable)" }}> · corrupt positions</strong>}
                    </div>
                  </td>
                  <td className="num">
                    {(ring.occupancyRatio * 100).toFixed(1)}%<div className="small muted">{formatBytes(ring.occupancy)}</div>
                  </td>
                  <td className="num">{formatDuration(ring.oldestAgeSeconds)}</td>
                  <td className="num small">
                    {formatRate(ring.publishRate ?? null)} / {formatRate(ring.consumeRate ?? null)}
                    {ring.fullEvents > 0 && <div className="muted">full {formatCount(ring.fullEvents)}×</div>}
                  </td>
                  <td className="num small">{ring.consumed === 0 ? "—" : `${nanos(ring.latency.p50Ns)} / ${nanos(ring.latency.p99Ns)}`}</td>
                  <td>
                    <Role role={ring.producer} />
                  </td>
                  <td>
                    <Role role={ring.consumer} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {selected && (
        <section className="grid" style={{ gridTemplateColumns: "repeat(auto-fill, minmax(340px, 1fr))", marginBottom: 16 }} aria-label="Ring charts">
          <SeriesChart title={`${selected}: occupancy (ratio)`} points={series?.occupancyRatio ?? []} testId="chart-occupancy" />
          <SeriesChart title={`${selected}: latency p99 (ms)`} points={series?.latencyP99Ms ?? []} testId="chart-latency" />
        </section>
      )}

      <section className="panel" aria-label="Orphans">
        <h2>Orphaned segments</h2>
        {report.orphans.length === 0 ? (
          <p className="muted">None: every ring has a live participant, or is too young to judge.</p>
        ) : (
          <table data-testid="orphans">
            <thead>
              <tr>
                <th>Segment</th>
                <th>Why it is an orphan</th>
                <th className="num">For</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {report.orphans.map((orphan) => (
                <tr key={`${orphan.segment}-${orphan.inode}`} data-testid="orphan-row">
                  <td className="mono">
                    {orphan.segment}
                    <div className="small muted">inode {orphan.inode}</div>
                  </td>
                  <td className="small">{orphan.reason}</td>
                  <td className="num">{formatDuration(orphan.sinceSeconds)}</td>
                  <td>{canAct ? <SegmentCleanup host={h.host} segment={orphan.segment} inode={orphan.inode} /> : <span className="small muted">operators can clean up</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="panel" aria-label="Other segments">
        <h2>Other segments</h2>
        {report.foreign.length === 0 ? (
          <p className="muted">Nothing else in the shm root.</p>
        ) : (
          <table data-testid="foreign">
            <thead>
              <tr>
                <th>Segment</th>
                <th>What it is</th>
                <th className="num">Size</th>
                <th className="num">Owner</th>
                <th className="num">Age</th>
                <th>Mapped by</th>
              </tr>
            </thead>
            <tbody>
              {report.foreign.map((entry) => (
                <tr key={`${entry.segment}-${entry.inode}`}>
                  <td className="mono">{entry.segment}</td>
                  <td className="small">{entry.reason}</td>
                  <td className="num">{formatBytes(entry.sizeBytes)}</td>
                  <td className="num">uid {entry.uid}</td>
                  <td className="num">{formatDuration(entry.ageSeconds)}</td>
                  <td className="small">{entry.mappedBy.length > 0 ? entry.mappedBy.map((pid) => `pid ${pid}`).join(", ") : "nobody"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <p className="small muted">Varal never touches a segment that is not one of its rings.</p>
      </section>
    </>
  );
}
