"use client";
// Every host whose agent reports: when it last did, its rings, orphans, and kernel findings.
import Link from "next/link";
import { StatusBadge } from "../../components/StatusBadge";
import { formatAgo } from "../../lib/format";
import { useHosts } from "../../lib/queries";

export default function HostsPage() {
  const hosts = useHosts();
  return (
    <>
      <h1>Hosts</h1>
      <p className="muted small">
        Each host runs <code>varal-agent</code>, which reports its shared-memory rings every few seconds. An agent silent for three of its intervals is marked silent.
      </p>
      {hosts.error && <div className="error">{hosts.error.message}</div>}
      <div className="panel">
        {hosts.data?.length === 0 ? (
          <p className="muted">
            No agent has reported yet. Create an agent token in Users &amp; tokens, then run <code>varal-agent --server URL --token TOKEN</code> on a host.
          </p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Host</th>
                <th>Status</th>
                <th>Last report</th>
                <th className="num">Rings</th>
                <th className="num">Orphans</th>
                <th className="num">Other segments</th>
                <th>Kernel</th>
              </tr>
            </thead>
            <tbody>
              {hosts.data?.map((host) => (
                <tr key={host.host} data-testid="host-row">
                  <td>
                    <Link href={`/hosts/${encodeURIComponent(host.host)}`}>{host.host}</Link>
                    <div className="small muted">agent {host.agentVersion}</div>
                  </td>
                  <td>
                    <StatusBadge status={host.status} title={host.statusReason} />
                    {host.statusReason && <div className="small muted">{host.statusReason}</div>}
                  </td>
                  <td className="small">{formatAgo(host.lastReportAt)}</td>
                  <td className="num">{host.ringCount}</td>
                  <td className="num">{host.orphanCount}</td>
                  <td className="num">{host.foreignCount}</td>
                  <td className="small">{host.kernelFindings.length === 0 ? "as brokers need" : `${host.kernelFindings.length} setting(s) to look at`}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
