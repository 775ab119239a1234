"use client";
// Runs an action on a queue the safe way: a dry run first, then an explicit confirmation
// (a purge needs the queue's name typed), then a job whose progress shows on the Actions page.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { api, ApiError } from "../lib/api";
import { keys } from "../lib/queries";
import type { Action, DryRun, PayloadPreview, QueueDetail } from "../lib/types";
import { Payload } from "./Payload";

const LABELS: Record<string, string> = { redrive: "Redrive", purge: "Purge", reprioritise: "Re-prioritise", "offset-reset": "Reset offsets" };

interface Form {
  limit: string;
  maxPerSecond: string;
  contains: string;
  confirm: string;
  messageIds: string;
  fromPriority: string;
  priority: string;
  method: string;
  destination: string;
  resetTo: string;
  resetValue: string;
  partitions: string;
}

const EMPTY: Form = {
  limit: "",
  maxPerSecond: "",
  contains: "",
  confirm: "",
  messageIds: "",
  fromPriority: "",
  priority: "0",
  method: "auto",
  destination: "",
  resetTo: "earliest",
  resetValue: "",
  partitions: "",
};

function paramsFor(kind: string, form: Form, brokerKind: string): Record<string, unknown> {
  const number = (value: string) => (value.trim() === "" ? undefined : Number(value));
  if (kind === "purge") return { confirm: form.confirm };
  if (kind === "redrive") {
    return {
      limit: number(form.limit),
      maxPerSecond: number(form.maxPerSecond),
      contains: form.contains || undefined,
      destination: form.destination || undefined,
      ...(brokerKind === "sqs" ? { method: form.method } : {}),
    };
  }
  if (kind === "offset-reset") {
    const partitions = form.partitions.split(/[\s,]+/).filter(Boolean).map(Number);
    const value = form.resetTo === "offset" ? number(form.resetValue) : form.resetTo === "timestamp" && form.resetValue ? new Date(form.resetValue).toISOString() : undefined;
    return { to: form.resetTo, value, partitions: partitions.length > 0 ? partitions : undefined };
  }
  if (kind === "reprioritise") {
    const ids = form.messageIds.split(/[\s,]+/).filter(Boolean);
    return ids.length > 0
      ? { messageIds: ids, priority: number(form.priority) }
      : {
          filter: { priority: number(form.fromPriority), contains: form.contains || undefined },
          priority: number(form.priority),
          ...(brokerKind === "redis" ? { maxPerSecond: number(form.maxPerSecond) } : {}),
        };
  }
  return {};
}

function SampleItem({ item }: { item: unknown }) {
  if (item && typeof item === "object" && "partition" in item && "to" in item) {
    const move = item as { partition: number; from: number | null; to: number; logEnd: number };
    return (
      <div className="small mono" data-testid="offset-move">
        partition {move.partition}: {move.from ?? "no commit"} → {move.to} (lag after: {move.logEnd - move.to})
      </div>
    );
  }
  if (item && typeof item === "object" && "encoding" in item && "text" in item) return <Payload preview={item as PayloadPreview} />;
  if (item && typeof item === "object" && "payload" in item) {
    const { payload, ...rest } = item as { payload: PayloadPreview | null } & Record<string, unknown>;
    return (
      <div>
        <div className="small mono">{Object.entries(rest).map(([key, value]) => `${key}: ${value ?? "—"}`).join(" · ")}</div>
        <Payload preview={payload} />
      </div>
    );
  }
  return <pre className="small">{JSON.stringify(item)}</pre>;
}

export function ActionPanel({ queue, canAct, pickedMessage }: { queue: QueueDetail; canAct: boolean; pickedMessage?: string | null }) {
  const [kind, setKind] = useState<string | null>(null);
  const [form, setForm] = useState<Form>(EMPTY);
  const [preview, setPreview] = useState<DryRun | null>(null);
  const idempotencyKey = useRef<string>("");
  const client = useQueryClient();

  const open = (next: string, initial: Partial<Form> = {}) => {
    setKind(next);
    setForm({ ...EMPTY, ...initial });
    setPreview(null);
    dryRun.reset();
    run.reset();
    idempotencyKey.current = crypto.randomUUID();
  };

  useEffect(() => {
    if (pickedMessage) open("reprioritise", { messageIds: pickedMessage });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [pickedMessage]);

  const body = (dry: boolean) => ({ kind, target: { queue: queue.id }, params: paramsFor(kind!, form, queue.kind), dryRun: dry, idempotencyKey: idempotencyKey.current });
  const dryRun = useMutation({ mutationFn: () => api<DryRun>("/api/actions", { method: "POST", body: body(true) }), onSuccess: setPreview });
  const run = useMutation({
    mutationFn: () => api<Action>("/api/actions", { method: "POST", body: body(false) }),
    onSuccess: () => {
      client.invalidateQueries({ queryKey: keys.actions });
      client.invalidateQueries({ queryKey: keys.queue(queue.id) });
    },
  });
  const field = (name: keyof Form, label: string, props: { size?: number; placeholder?: string; testId?: string } = {}) => (
    <label className="row small">
      {label}
      <input
        value={form[name]}
        onChange={(event) => {
          setForm({ ...form, [name]: event.target.value });
          setPreview(null);
        }}
        size={props.size ?? 8}
        placeholder={props.placeholder}
        data-testid={props.testId}
      />
    </label>
  );

  if (queue.actions.length === 0) {
    return <p className="muted small">No actions apply to this {queue.kind} {queue.type} queue.</p>;
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
        {!canAct && <span className="small muted">Your role can look but not run actions.</span>}
      </div>
      {kind && (
        <div className="panel" style={{ marginTop: 10 }}>
          <h2>
            {LABELS[kind] ?? kind} {queue.id}
          </h2>
          <div className="row">
            {kind === "redrive" && (
              <>
                {field("limit", "At most", { placeholder: "all" })}
                {field("maxPerSecond", "Messages per second", { placeholder: "no limit" })}
                {queue.type === "priority" && field("contains", "Only if payload or error contains", { size: 16 })}
                {queue.kind === "kafka" && field("destination", "To topic", { size: 16, placeholder: "from headers" })}
                {queue.kind === "sqs" && (
                  <label className="row small">
                    How
                    <select value={form.method} onChange={(event) => setForm({ ...form, method: event.target.value })}>
                      <option value="auto">SQS move task (manual if unsupported)</option>
                      <option value="move-task">SQS move task only</option>
                      <option value="manual">By hand: receive, send, delete</option>
                    </select>
                  </label>
                )}
              </>
            )}
            {kind === "offset-reset" && (
              <>
                <label className="row small">
                  To
                  <select value={form.resetTo} onChange={(event) => setForm({ ...form, resetTo: event.target.value, resetValue: "" })} data-testid="reset-to">
                    <option value="earliest">the earliest offset</option>
                    <option value="latest">the latest offset (skip the backlog)</option>
                    <option value="timestamp">the first record at or after a time</option>
                    <option value="offset">an offset</option>
                  </select>
                </label>
                {form.resetTo === "offset" && field("resetValue", "Offset", { size: 10, testId: "reset-value" })}
                {form.resetTo === "timestamp" && (
                  <label className="row small">
                    Time
                    <input type="datetime-local" value={form.resetValue} onChange={(event) => setForm({ ...form, resetValue: event.target.value })} />
                  </label>
                )}
                {field("partitions", "Partitions", { size: 10, placeholder: "all" })}
              </>
            )}
            {kind === "purge" && (
              <label className="row small">
                Type <code>{queue.name}</code> to confirm:
                <input value={form.confirm} onChange={(event) => setForm({ ...form, confirm: event.target.value })} data-testid="purge-confirm" />
              </label>
            )}
            {kind === "reprioritise" && (
              <>
                {field("messageIds", "Message ids", { size: 16, placeholder: "or use the filter", testId: "reprioritise-ids" })}
                {field("fromPriority", "Filter: priority", { size: 5, placeholder: "any" })}
                {field("contains", "Filter: payload contains", { size: 14 })}
                {field("priority", "New priority (0 = first)", { size: 5, testId: "reprioritise-priority" })}
                {queue.kind === "redis" && field("maxPerSecond", "Filter: scan per second", { placeholder: "no limit" })}
              </>
            )}
          </div>
          <div className="row" style={{ marginTop: 8 }}>
            <button onClick={() => dryRun.mutate()} disabled={dryRun.isPending}>
              Preview (dry run)
            </button>
            <button
              className={kind === "purge" ? "danger" : "primary"}
              onClick={() => run.mutate()}
              disabled={!preview || run.isPending || run.isSuccess || (kind === "purge" && form.confirm !== queue.name)}
              data-testid="action-confirm"
            >
              {run.isSuccess ? "Started" : `Confirm ${LABELS[kind]?.toLowerCase() ?? kind}`}
            </button>
          </div>
          {preview && (
            <div style={{ marginTop: 8 }} data-testid="dry-run">
              <p>
                Would affect <strong>{preview.wouldAffect ?? "an unknown number of"}</strong> message(s).
              </p>
              {preview.warnings.map((warning) => (
                <p key={warning} className="note">
                  {warning}
                </p>
              ))}
              {preview.sample.map((item, index) => (
                <SampleItem key={index} item={item} />
              ))}
            </div>
          )}
          {error && (
            <div className="error" role="alert" data-testid="error">
              {error.message}
            </div>
          )}
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
