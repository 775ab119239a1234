// Users: first-run setup, creation by an admin, and password login.
import { recordAudit } from "../audit/log";
import { db } from "../db/client";
import { VaralError } from "../errors";
import { isRole, type Role } from "./permissions";
import { clearLoginFailures, loginRetryAfterSeconds, recordLoginFailure } from "./rate-limit";
import { hashPassword, verifyPassword } from "./secrets";

export interface PublicUser {
  id: string;
  username: string;
  role: Role;
  createdAt: string;
}

function toPublic(user: { id: string; username: string; role: string; createdAt: Date }): PublicUser {
  return { id: user.id, username: user.username, role: isRole(user.role) ? user.role : "viewer", createdAt: user.createdAt.toISOString() };
}

export async function setupNeeded(): Promise<boolean> {
  return (await db().user.count()) === 0;
}

export async function createUser(username: string, password: string, role: Role): Promise<PublicUser> {
  const existing = await db().user.findUnique({ where: { username } });
  if (existing) throw new VaralError("conflict", `A user named "${username}" already exists: choose another name.`);
  const user = await db().user.create({ data: { username, passwordHash: await hashPassword(password), role } });
  return toPublic(user);
}

/** Creates the first admin; refused once any user exists, so the page cannot be replayed. */
export async function setupFirstAdmin(username: string, password: string, ip: string | null): Promise<PublicUser> {
  const passwordHash = await hashPassword(password);
  const user = await db().$transaction(async (tx) => {
    if ((await tx.user.count()) > 0) return null;
    return tx.user.create({ data: { username, passwordHash, role: "admin" } });
  });
  if (!user) {
    await recordAudit({ actor: username, event: "setup", outcome: "refused", message: "setup already done", ip });
    throw new VaralError("forbidden", "Setup is already done: sign in, or ask an admin for an account.");
  }
  await recordAudit({ actor: username, event: "setup", outcome: "ok", message: "first admin created", ip });
  return toPublic(user);
}

export async function listUsers(): Promise<PublicUser[]> {
  const users = await db().user.findMany({ orderBy: { createdAt: "asc" } });
  return users.map(toPublic);
}

export async function getUser(id: string): Promise<PublicUser | null> {
  const user = await db().user.findUnique({ where: { id } });
  return user ? toPublic(user) : null;
}

/** Checks a password login, with the rate limit; every outcome is audited. */
export async function checkLogin(username: string, password: string, ip: string): Promise<PublicUser> {
  const retryAfter = await loginRetryAfterSeconds(ip, username);
  if (retryAfter > 0) {
    await recordAudit({ actor: username, event: "login", outcome: "refused", message: "rate limited", ip });
    throw new VaralError(
      "rate_limited",
      `Too many failed sign-ins: try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
      { retryAfterSeconds: retryAfter },
      { "Retry-After": String(retryAfter) },
    );
  }
  const user = await db().user.findUnique({ where: { username } });
  // A missing user still costs one hash, so timing does not reveal which names exist.
  const ok = user ? await verifyPassword(password, user.passwordHash) : (await hashPassword(password), false);
  if (!user || !ok) {
    await recordLoginFailure(ip, username);
    await recordAudit({ actor: username, event: "login", outcome: "refused", message: "wrong username or password", ip });
    throw new VaralError("unauthenticated", "Wrong username or password.");
  }
  await clearLoginFailures(ip, username);
  await recordAudit({ actor: username, event: "login", outcome: "ok", ip });
  return toPublic(user);
}
