// API tokens for automation (acting with their user's role) and for agents (report only).
import { db } from "../db/client";
import { VaralError } from "../errors";
import { digest, newToken } from "./secrets";

export type TokenKind = "user" | "agent";

export interface PublicToken {
  id: string;
  name: string;
  kind: TokenKind;
  username: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export async function createToken(name: string, kind: TokenKind, userId: string | null): Promise<{ token: string; info: PublicToken }> {
  if (kind === "user" && !userId) throw new VaralError("invalid_input", "A user token needs a user: sign in as that user to create it.");
  const token = newToken("vt_");
  const row = await db().apiToken.create({
    data: { name, kind, userId: kind === "user" ? userId : null, tokenHash: digest(token) },
    include: { user: true },
  });
  return { token, info: toPublic(row) };
}

function toPublic(row: { id: string; name: string; kind: string; createdAt: Date; lastUsedAt: Date | null; user: { username: string } | null }): PublicToken {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind === "agent" ? "agent" : "user",
    username: row.user?.username ?? null,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

export async function listTokens(): Promise<PublicToken[]> {
  const rows = await db().apiToken.findMany({ where: { revokedAt: null }, include: { user: true }, orderBy: { createdAt: "asc" } });
  return rows.map(toPublic);
}

/** Revokes an active token; returns its name, for the audit log. */
export async function revokeToken(id: string): Promise<{ name: string }> {
  const { count } = await db().apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  if (count === 0) throw new VaralError("not_found", `No active token with id ${id}: list tokens with GET /api/tokens.`);
  const { name } = await db().apiToken.findUniqueOrThrow({ where: { id }, select: { name: true } });
  return { name };
}

export async function findToken(token: string) {
  const row = await db().apiToken.findUnique({ where: { tokenHash: digest(token) }, include: { user: true } });
  if (!row || row.revokedAt) return null;
  // Last use is informational: one write a minute per token is enough.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    await db().apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => undefined);
  }
  return row;
}
