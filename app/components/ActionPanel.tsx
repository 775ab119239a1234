"use client";
// Runs an action on a queue the safe way: a dry run first, then an explicit confirmation
// (a purge needs the queue's name typed), then a job whose progress shows on the Actions page.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { api, ApiError } from "../lib/api";
import { keys } from "../lib/queries";
import type { Action, DryRun, QueueDetail } from "../lib/types";

const LABELS: Record<string, string> = { redrive: "Redrive", purge: "Purge", reprioritise: "Re-prioritise", "offset-reset": "Reset offsets" };

export function ActionPanel({ queue, canAct }: { queue: QueueDetail; canAct: boolean }) {
  const [kind, setKind] = useState<string | null>(null);
  const [limit, setLimit] = useState("");
  const [confirmText, setConfirmText] = useState("");
  const [preview, setPreview] = useState<DryRun | null>(null);
  const idempotencyKey = useRef<string>("");
  const client = useQueryClient();

  const params = (): Record<string, unknown> =>
    kind === "purge" ? { confirm: confirmText } : limit ? { limit: Number(limit) } : {};

  const dryRun = useMutation({
    mutationFn: () => api<DryRun>("/api/actions", { method: "POST", body: { kind, target: { queue: queue.id }, params: params(), dryRun: true, idempotencyKey: idempotencyKey.current } }),
    onSuccess: setPreview,
  });
  const run = useMutation({
    mutationFn: () => api<Action>("/api/actions", { method: "POST", body: { kind, target: { queue: queue.id }, params: params(), idempotencyKey: idempotencyKey.current } }),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: keys.actions });
      client.invalidateQueries({ queryKey: keys.queue(queue.id) });
    },
  });

  const open = (next: string) => {
    setKind(next);
    setPreview(null);
    setConfirmText("");
    setLimit("");
    dryRun.reset();
    run.reset();
    idempotencyKey.current = crypto.randomUUID();
  };

  if (queue.actions.length === 0) {
    return <p className="muted small">No actions are available for {queue.kind} queues of this type.</p>;
  }
  const error = (dryRun.error ?? run.error) as ApiError | null;
  return (
    <div>
      <div className="row">
        {queue.actions.map((action) => (
          <button key={action} onClick={() => open(action)} aria-pressed={kind === action} data-testid={`action-${action}`}>
            {LABELS[action] ?? action}
          </button>
        ))}
        {!canAct && <span className="small muted">Your role can preview but not run actions.</span>}
      </div>
      {kind && (
        <div className="panel" style={{ marginTop: 10 }}>
          <h2>
            {LABELS[kind] ?? kind} {queue.id}
          </h2>
          {kind === "redrive" && (
            <label className="row small">
              At most
              <input value={limit} onChange={(event) => setLimit(event.target.value.replace(/\D/g, ""))} placeholder="all" size={8} />
              messages
            </label>
          )}
          {kind === "purge" && (
            <label className="row small">
              Type <code>{queue.name}</code> to confirm:
              <input value={confirmText} onChange={(event) => setConfirmText(event.target.value)} data-testid="purge-confirm" />
            </label>
          )}
          <div className="row" style={{ marginTop: 8 }}>
            <button onClick={() => dryRun.mutate()} disabled={dryRun.isPending}>
              Preview (dry run)
            </button>
            <button
              className={kind === "purge" ? "danger" : "primary"}
              onClick={() => run.mutate()}
              disabled={!preview || run.isPending || run.isSuccess || (kind === "purge" && confirmText !== queue.name)}
              data-testid="action-confirm"
            >
              {run.isSuccess ? "Started" : `Confirm ${LABELS[kind]?.toLowerCase() ?? kind}`}
            </button>
          </div>
          {preview && (
            <div style={{ marginTop: 8 }}>
              <p>
                Would affect <strong>{preview.wouldAffect ?? "an unknown number of"}</strong> message(s).
              </p>
              {preview.warnings.map((warning) => (
                <p key={warning} className="note">
                  {warning}
                </p>
              ))}
              {preview.sample.map((item, index) => (
                <div key={index} className="payload">
                  <div className="small muted">
                    {item.bytes} bytes, {item.encoding}
                    {item.truncated ? ", truncated" : ""}
                  </div>
                  <pre>{item.text}</pre>
                </div>
              ))}
            </div>
          )}
          {error && <div className="error" role="alert" data-testid="error">{error.message}</div>}
          {run.isSuccess && (
            <p className="small">
              Started as action <code>{run.data.id}</code>: follow it on the <a href="/actions">Actions</a> page.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
