// Users: first-run setup, creation, role changes and removal by an admin, and password login.
import { recordAudit } from "../audit/log";
import { db, type Db } from "../db/client";
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

/**
 * Changes a user's role. The last admin keeps theirs: Varal always has someone who can
 * manage it.
 */
export async function changeRole(id: string, role: Role): Promise<PublicUser> {
  return db().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id } });
    if (!user) throw noSuchUser(id);
    if (role !== "admin") await keepLastAdmin(tx.user, user);
    return toPublic(await tx.user.update({ where: { id }, data: { role } }));
  });
}

/**
 * Removes a user; their sessions and tokens go with them (the store cascades), so they are
 * signed out at once. Nobody removes their own account, and the last admin stays.
 */
export async function removeUser(id: string, removedBy: string | null): Promise<PublicUser> {
  return db().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id } });
    if (!user) throw noSuchUser(id);
    if (id === removedBy) throw new VaralError("conflict", "You cannot remove your own account: ask another admin.");
    await keepLastAdmin(tx.user, user);
    await tx.user.delete({ where: { id } });
    return toPublic(user);
  });
}

/** Refuses to take the admin role from the only user who has it. */
async function keepLastAdmin(users: Pick<Db["user"], "count">, user: { username: string; role: string }): Promise<void> {
  if (user.role === "admin" && (await users.count({ where: { role: "admin" } })) === 1) {
    throw new VaralError("conflict", `${user.username} is the last admin: make another user admin first.`);
  }
}

function noSuchUser(id: string): VaralError {
  return new VaralError("not_found", `No user with id ${id}: list users with GET /api/users.`);
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
