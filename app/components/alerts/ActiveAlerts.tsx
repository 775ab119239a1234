"use client";
// What fires now and what resolved lately.
import { useQuery } from "@tanstack/react-query";
import { api } from "../../lib/api";
import { formatAgo } from "../../lib/format";
import { POLL, keys } from "../../lib/queries";
import { ErrorLine } from "../InlineForm";
import { StatusBadge } from "../StatusBadge";
import { labelsText, type ActiveAlert } from "./model";

/** The colour of each alert state, borrowed from the queue statuses. */
const STATE_TO_STATUS: Record<string, string> = { firing: "stopped", pending: "warning", resolved: "ok" };

export function ActiveAlerts() {
  const active = useQuery({ queryKey: keys.alerts, queryFn: () => api<ActiveAlert[]>("/api/alerts"), refetchInterval: POLL.snapshot });
  return (
    <section className="panel" aria-label="Firing and recent alerts">
      <h2>Firing and recently resolved</h2>
      <ErrorLine error={active.error} />
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
                  <StatusBadge status={STATE_TO_STATUS[alert.state] ?? "ok"} label={alert.state} />
                  {alert.silenced && <span className="small muted"> · silenced</span>}
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
  );
}
