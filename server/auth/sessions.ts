// Browser sessions: a random cookie value, stored only as its sha256.
import { db } from "../db/client";
import { digest, newToken } from "./secrets";

export const SESSION_COOKIE = "varal_session";
export const SESSION_TTL_MS = 7 * 24 * 3600_000;

export async function createSession(userId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken("vs_");
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await db().session.create({ data: { id: digest(token), userId, expiresAt } });
  return { token, expiresAt };
}

export async function findSessionUser(token: string) {
  const session = await db().session.findUnique({ where: { id: digest(token) }, include: { user: true } });
  if (!session) return null;
  if (session.expiresAt.getTime() <= Date.now()) {
    await db().session.delete({ where: { id: session.id } }).catch(() => undefined);
    return null;
  }
  return session.user;
}

export async function deleteSession(token: string): Promise<void> {
  await db().session.deleteMany({ where: { id: digest(token) } });
}

export function sessionCookie(token: string, expiresAt: Date, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${token}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Expires=${expiresAt.toUTCString()}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`;
}

export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}
