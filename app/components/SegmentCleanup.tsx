"use client";
// Cleanup of an orphaned segment: a dry run first, then the action, carried out by the
// host's agent; the action ends when the agent's next report says what it did.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { api, ApiError } from "../lib/api";
import { keys } from "../lib/queries";
import type { Action, DryRun } from "../lib/types";

export function SegmentCleanup({ host, segment, inode }: { host: string; segment: string; inode: number }) {
  const [preview, setPreview] = useState<DryRun | null>(null);
  const key = useRef(crypto.randomUUID());
  const client = useQueryClient();
  const body = (dryRun: boolean) => ({ kind: "segment-cleanup", target: { host, segment, inode }, params: {}, dryRun, idempotencyKey: key.current });
  const dryRun = useMutation({ mutationFn: () => api<DryRun>("/api/actions", { method: "POST", body: body(true) }), onSuccess: setPreview });
  const run = useMutation({
    mutationFn: () => api<Action>("/api/actions", { method: "POST", body: body(false) }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.actions }),
  });
  const error = (dryRun.error ?? run.error) as ApiError | null;
  return (
    <div data-testid={`cleanup-${segment}`}>
      {!preview ? (
        <button onClick={() => dryRun.mutate()} disabled={dryRun.isPending}>
          Clean up…
        </button>
      ) : (
        <div>
          {preview.warnings.map((warning) => (
            <p key={warning} className="note small">
              {warning}
            </p>
          ))}
          <button className="danger" onClick={() => run.mutate()} disabled={run.isPending || run.isSuccess} data-testid="cleanup-confirm">
            {run.isSuccess ? "Sent to the agent" : `Remove ${segment}`}
          </button>
        </div>
      )}
      {run.isSuccess && (
        <p className="small">
          Action <code>{run.data.id}</code>: the agent acts on its next report; follow it on the <a href="/actions">Actions</a> page.
        </p>
      )}
      {error && (
        <div className="error" role="alert">
          {error.message}
        </div>
      )}
    </div>
  );
}
