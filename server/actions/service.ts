// Requesting, listing and cancelling actions. Every request, dry run and refusal is audited.
import { recordAudit } from "../audit/log";
import { can, type Principal } from "../auth/permissions";
import { getQueue } from "../collect/queries";
import { collectorState } from "../collect/state";
import { db, toJsonColumn } from "../db/client";
import { VaralError, brokerFailure } from "../errors";
import { segmentCleanupDryRun } from "../agents/cleanup";
import { findActionHandler } from "./registry";
import { actionRunner } from "./runner";
import { toActionRecord } from "./store";
import type { ActionKind, ActionRecord, ActionState, DryRunResult, QueueActionTarget } from "./types";

export interface ActionRequest {
  kind: ActionKind;
  target: { queue?: string; host?: string; segment?: string; inode?: number };
  params: Record<string, unknown>;
  dryRun?: boolean;
  idempotencyKey: string;
}

export type ActionOutcome = { dryRun: DryRunResult } | { action: ActionRecord; created: boolean };

const NOT_APPLICABLE: Partial<Record<ActionKind, Partial<Record<string, string>>>> = {
  reprioritise: {
    kafka: "Kafka orders records by partition offset; there is no priority to change.",
    sqs: "SQS has no message priorities.",
  },
};

export async function requestAction(principal: Principal, request: ActionRequest, ip: string | null): Promise<ActionOutcome> {
  const targetLabel = request.target.queue ?? `${request.target.host}:${request.target.segment}`;
  const refuse = async (error: VaralError): Promise<never> => {
    await recordAudit({
      actor: principal.name,
      event: `action.${request.kind}${request.dryRun ? ".dry-run" : ""}`,
      target: targetLabel,
      outcome: "refused",
      message: error.message,
      details: { params: request.params },
      ip,
    });
    throw error;
  };

  if (!can(principal, "act")) {
    return refuse(new VaralError("forbidden", `Your role (${principal.role ?? principal.kind}) may not run actions: ask an operator or admin.`));
  }
  if (request.kind === "segment-cleanup") {
    const { host, segment, inode } = request.target;
    if (!host || !segment || inode === undefined) {
      return refuse(new VaralError("invalid_input", "segment-cleanup needs target.host, target.segment and target.inode, as the host's report lists its orphans."));
    }
    const target = { host, segment, inode };
    let dryRun: DryRunResult;
    try {
      // A run is checked like a dry run: the segment must be an orphan in the host's last report.
      dryRun = await segmentCleanupDryRun(target);
    } catch (error) {
      return refuse(error as VaralError);
    }
    if (request.dryRun) {
      await recordAudit({ actor: principal.name, event: "action.segment-cleanup.dry-run", target: targetLabel, outcome: "ok", message: dryRun.warnings[0], ip });
      return { dryRun };
    }
    return createAction(principal, request, { targetJson: toJsonColumn(target), label: targetLabel, params: {} }, ip, refuse);
  }
  if (!request.target.queue) {
    return refuse(new VaralError("invalid_input", `${request.kind} needs target.queue: a queue id such as "redis/orders:dlq".`));
  }
  let target: QueueActionTarget;
  try {
    const queue = getQueue(request.target.queue);
    const broker = collectorState().brokers.get(queue.broker)!.config;
    target = { queue, broker };
  } catch (error) {
    return refuse(error as VaralError);
  }
  const handler = findActionHandler(target.broker.kind, request.kind);
  if (!handler) {
    const reason = NOT_APPLICABLE[request.kind]?.[target.broker.kind] ?? `Varal cannot ${request.kind} ${target.broker.kind} queues.`;
    return refuse(new VaralError("invalid_input", reason));
  }
  const parsed = handler.params.safeParse(request.params);
  if (!parsed.success) {
    const summary = parsed.error.issues.map((issue) => `params.${issue.path.join(".")}: ${issue.message}`).join("; ");
    return refuse(new VaralError("invalid_input", `Invalid params for ${request.kind}: ${summary}.`, parsed.error.issues));
  }
  try {
    handler.check?.(target, parsed.data, request.dryRun ? "dry-run" : "run");
  } catch (error) {
    return refuse(error as VaralError);
  }

  if (request.dryRun) {
    let result: DryRunResult;
    try {
      result = await handler.dryRun(target, parsed.data);
    } catch (error) {
      throw brokerFailure(error, target.broker.name, `The preview of ${request.kind} on ${target.queue.id}`);
    }
    await recordAudit({
      actor: principal.name,
      event: `action.${request.kind}.dry-run`,
      target: target.queue.id,
      outcome: "ok",
      message: `would affect ${result.wouldAffect ?? "an unknown number of"} message(s)`,
      details: { params: parsed.data, warnings: result.warnings },
      ip,
    });
    return { dryRun: result };
  }

  return createAction(principal, request, { targetJson: toJsonColumn({ queue: target.queue.id }), label: target.queue.id, params: parsed.data }, ip, refuse);
}

/** Creates the job (or returns the one this idempotency key already made) and audits it. */
async function createAction(
  principal: Principal,
  request: ActionRequest,
  target: { targetJson: string; label: string; params: unknown },
  ip: string | null,
  refuse: (error: VaralError) => Promise<never>,
): Promise<ActionOutcome> {
  const { targetJson } = target;
  const existing = await db().action.findUnique({
    where: { requestedBy_idempotencyKey: { requestedBy: principal.name, idempotencyKey: request.idempotencyKey } },
  });
  if (existing) {
    if (existing.kind !== request.kind || existing.target !== targetJson) {
      return refuse(
        new VaralError("conflict", `Idempotency key "${request.idempotencyKey}" was already used for another action (${existing.id}): use a new key.`),
      );
    }
    return { action: toActionRecord(existing), created: false };
  }
  let row;
  try {
    row = await db().action.create({
      data: {
        kind: request.kind,
        target: targetJson,
        params: toJsonColumn(target.params),
        idempotencyKey: request.idempotencyKey,
        requestedBy: principal.name,
        state: "pending",
      },
    });
  } catch (error) {
    // Two identical requests raced: the unique key let one through; return that one.
    const raced = await db().action.findUnique({
      where: { requestedBy_idempotencyKey: { requestedBy: principal.name, idempotencyKey: request.idempotencyKey } },
    });
    if (!raced) throw error;
    return { action: toActionRecord(raced), created: false };
  }
  await recordAudit({
    actor: principal.name,
    event: `action.${request.kind}`,
    target: target.label,
    outcome: "ok",
    message: `requested as ${row.id}`,
    details: { params: target.params, idempotencyKey: request.idempotencyKey },
    ip,
  });
  actionRunner().wake();
  return { action: toActionRecord(row), created: true };
}

export async function getAction(id: string): Promise<ActionRecord> {
  const row = await db().action.findUnique({ where: { id } });
  if (!row) throw new VaralError("not_found", `No action with id ${id}: see GET /api/actions.`);
  return toActionRecord(row);
}

export async function listActions(filter: { state?: ActionState; limit: number; cursor?: string }) {
  const rows = await db().action.findMany({
    where: filter.state ? { state: filter.state } : undefined,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: filter.limit + 1,
    ...(filter.cursor ? { cursor: { id: filter.cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, filter.limit);
  return { items: page.map(toActionRecord), nextCursor: rows.length > filter.limit ? page[page.length - 1].id : null };
}

export async function cancelAction(principal: Principal, id: string, ip: string | null): Promise<ActionRecord> {
  const row = await db().action.findUnique({ where: { id } });
  if (!row) throw new VaralError("not_found", `No action with id ${id}: see GET /api/actions.`);
  if (row.state === "pending") {
    await db().action.updateMany({ where: { id, state: "pending" }, data: { state: "cancelled", finishedAt: new Date() } });
  } else if (row.state === "running") {
    await db().action.update({ where: { id }, data: { cancelRequested: true } });
    actionRunner().cancelLocal(id);
  } else {
    throw new VaralError("conflict", `Action ${id} is already ${row.state}: only pending or running actions can be cancelled.`);
  }
  await recordAudit({ actor: principal.name, event: `action.${row.kind}.cancel`, target: id, outcome: "ok", ip });
  return getAction(id);
}
