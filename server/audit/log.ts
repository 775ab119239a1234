// The audit log: every login, action, refusal and setting change, newest first.
import { db, fromJsonColumn, toJsonColumn } from "../db/client";

export type AuditOutcome = "ok" | "refused" | "failed";

export interface AuditEntry {
  actor: string;
  event: string;
  target?: string | null;
  outcome: AuditOutcome;
  message?: string | null;
  details?: unknown;
  ip?: string | null;
}

export async function recordAudit(entry: AuditEntry): Promise<void> {
  await db().auditEvent.create({
    data: {
      actor: entry.actor,
      event: entry.event,
      target: entry.target ?? null,
      outcome: entry.outcome,
      message: entry.message ?? null,
      details: entry.details === undefined ? null : toJsonColumn(entry.details),
      ip: entry.ip ?? null,
    },
  });
}

export interface AuditPage {
  items: Array<{
    id: number;
    at: string;
    actor: string;
    event: string;
    target: string | null;
    outcome: string;
    message: string | null;
    details: unknown;
    ip: string | null;
  }>;
  nextCursor: string | null;
}

export async function listAudit(limit: number, cursor?: string): Promise<AuditPage> {
  const rows = await db().auditEvent.findMany({
    where: cursor ? { id: { lt: Number(cursor) } } : undefined,
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return {
    items: page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actor,
      event: row.event,
      target: row.target,
      outcome: row.outcome,
      message: row.message,
      details: fromJsonColumn(row.details),
      ip: row.ip,
    })),
    nextCursor: rows.length > limit ? String(page[page.length - 1].id) : null,
  };
}
