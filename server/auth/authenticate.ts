// Who is calling: a session cookie, a bearer token, or one of the environment tokens.
import { isRole, type Principal } from "./permissions";
import { SESSION_COOKIE, findSessionUser, readCookie } from "./sessions";
import { constantTimeEqual } from "./secrets";
import { findToken } from "./tokens";

export async function authenticate(request: Request, env: Record<string, string | undefined> = process.env): Promise<Principal | null> {
  const authorization = request.headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (!match) return null;
    return principalForToken(match[1], env);
  }
  const cookie = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  if (!cookie) return null;
  const user = await findSessionUser(cookie);
  if (!user || !isRole(user.role)) return null;
  return { kind: "user", id: user.id, name: user.username, role: user.role, userId: user.id, viaCookie: true };
}

async function principalForToken(token: string, env: Record<string, string | undefined>): Promise<Principal | null> {
  if (env.VARAL_ADMIN_TOKEN && constantTimeEqual(token, env.VARAL_ADMIN_TOKEN)) {
    return { kind: "admin-token", id: "env:VARAL_ADMIN_TOKEN", name: "VARAL_ADMIN_TOKEN", role: "admin", userId: null, viaCookie: false };
  }
  if (env.VARAL_AGENT_TOKEN && constantTimeEqual(token, env.VARAL_AGENT_TOKEN)) {
    return { kind: "agent", id: "env:VARAL_AGENT_TOKEN", name: "VARAL_AGENT_TOKEN", role: null, userId: null, viaCookie: false };
  }
  const row = await findToken(token);
  if (!row) return null;
  if (row.kind === "agent") {
    return { kind: "agent", id: row.id, name: `agent token ${row.name}`, role: null, userId: null, viaCookie: false };
  }
  if (!row.user || !isRole(row.user.role)) return null;
  return {
    kind: "token",
    id: row.id,
    name: `${row.user.username} (token ${row.name})`,
    role: row.user.role,
    userId: row.user.id,
    viaCookie: false,
  };
}

/** A cookie-authenticated mutation must come from this origin (CSRF defence besides SameSite). */
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (!origin) return false;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The header scripts/serve.ts sets to the connection's own address, replacing any sent. */
export const PEER_HEADER = "x-varal-peer";

/**
 * The client's address, for the sign-in limit and the audit log. X-Forwarded-For names it
 * only behind a proxy that sets it (VARAL_TRUST_PROXY=1): otherwise anyone could send a new
 * address with each request and escape the per-address limit.
 */
export function clientAddress(request: Request, env: Record<string, string | undefined> = process.env): string {
  if (env.VARAL_TRUST_PROXY === "1") {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0].trim() || request.headers.get("x-real-ip");
    if (forwarded) return forwarded;
  }
  return request.headers.get(PEER_HEADER) || "local";
}
