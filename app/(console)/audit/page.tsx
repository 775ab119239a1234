"use client";

import { useAudit } from "../../lib/queries";

export default function AuditPage() {
  const audit = useAudit();
  return (
    <>
      <h1>Audit log</h1>
      {audit.error && <div className="error">{audit.error.message}</div>}
      <div className="panel">
        <table>
          <thead>
            <tr>
              <th>When</th>
              <th>Who</th>
              <th>Event</th>
              <th>Target</th>
              <th>Outcome</th>
              <th>Detail</th>
            </tr>
          </thead>
          <tbody>
            {audit.data?.items.map((event) => (
              <tr key={event.id}>
                <td className="small mono">{new Date(event.at).toLocaleString()}</td>
                <td>{event.actor}</td>
                <td className="mono small">{event.event}</td>
                <td className="small">{event.target ?? ""}</td>
                <td>
                  <span className={`badge ${event.outcome === "ok" ? "status-ok" : event.outcome === "refused" ? "status-warning" : "status-stopped"}`}>
                    {event.outcome}
                  </span>
                </td>
                <td className="small">{event.message ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
