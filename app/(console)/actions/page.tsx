"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { ProgressBar } from "../../components/ProgressBar";
import { api, queuePagePath } from "../../lib/api";
import { formatAgo } from "../../lib/format";
import { keys, useActions, useMe } from "../../lib/queries";

export default function ActionsPage() {
  const actions = useActions();
  const me = useMe();
  const client = useQueryClient();
  const cancel = useMutation({
    mutationFn: (id: string) => api(`/api/actions/${id}/cancel`, { method: "POST" }),
    onSettled: () => client.invalidateQueries({ queryKey: keys.actions }),
  });
  const canAct = me.data?.role === "operator" || me.data?.role === "admin";

  return (
    <>
      <h1>Actions</h1>
      <p className="muted small">Actions run on the server: closing this page does not stop them.</p>
      {actions.error && <div className="error">{actions.error.message}</div>}
      {cancel.error && <div className="error">{cancel.error.message}</div>}
      <div className="panel">
        {actions.data?.items.length === 0 ? (
          <p className="muted">No actions yet. Start one from a queue's page.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Action</th>
                <th>Queue</th>
                <th>State</th>
                <th style={{ width: "28%" }}>Progress</th>
                <th>By</th>
                <th>Requested</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {actions.data?.items.map((action) => (
                <tr key={action.id} data-testid={`action-row-${action.id}`}>
                  <td>
                    {action.kind}
                    <div className="small muted mono">{action.id}</div>
                  </td>
                  <td>
                    {typeof action.target.queue === "string" ? (
                      <Link href={queuePagePath(action.target.queue)}>{action.target.queue}</Link>
                    ) : typeof action.target.host === "string" ? (
                      <Link href={`/hosts/${encodeURIComponent(action.target.host)}`}>
                        {action.target.host}: {String(action.target.segment)}
                      </Link>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td>
                    <span className={`badge state-${action.state}`}>{action.state}</span>
                    {action.error && <div className="small" style={{ color: "var(--danger)" }}>{action.error}</div>}
                  </td>
                  <td>
                    <ProgressBar done={action.progress.done} total={action.progress.total} />
                  </td>
                  <td>{action.requestedBy}</td>
                  <td className="small">{formatAgo(action.createdAt)}</td>
                  <td>
                    {canAct && (action.state === "running" || action.state === "pending") && (
                      <button onClick={() => cancel.mutate(action.id)} disabled={cancel.isPending}>
                        Cancel
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
