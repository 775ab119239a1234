// Persistence of actions: rows to the API's Action shape.
import { db, fromJsonColumn } from "../db/client";
import type { ActionKind, ActionRecord, ActionState } from "./types";

type ActionRow = Awaited<ReturnType<ReturnType<typeof db>["action"]["findUniqueOrThrow"]>>;

export function toActionRecord(row: ActionRow): ActionRecord {
  return {
    id: row.id,
    kind: row.kind as ActionKind,
    target: fromJsonColumn(row.target) ?? {},
    params: fromJsonColumn(row.params) ?? {},
    state: row.state as ActionState,
    progress: { done: row.progressDone, total: row.progressTotal },
    result: fromJsonColumn(row.result),
    error: row.error,
    requestedBy: row.requestedBy,
    createdAt: row.createdAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}
