// The store on both providers: SQLite (embedded default) and PostgreSQL (the machine's own).
import crypto from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { listAudit, recordAudit } from "@/server/audit/log";
import { clearLoginFailures, loginRetryAfterSeconds, recordLoginFailure } from "@/server/auth/rate-limit";
import { findSessionUser, createSession, deleteSession } from "@/server/auth/sessions";
import { createToken, findToken, listTokens, revokeToken } from "@/server/auth/tokens";
import { changeRole, checkLogin, createUser, removeUser, setupFirstAdmin, setupNeeded } from "@/server/auth/users";
import { db, disconnectDb, storeProvider } from "@/server/db/client";
import { useDatabase, useFreshSqlite } from "../support/store";

let sqliteUrl: string | undefined;
const providers = [
  { name: "sqlite", use: async () => (sqliteUrl ? useDatabase(sqliteUrl) : void (sqliteUrl = await useFreshSqlite())) },
  { name: "postgresql", use: () => useDatabase(inject("postgresUrl")) },
];

afterAll(() => disconnectDb());

describe.each(providers)("store on $name", ({ name, use }) => {
  const unique = () => `u${crypto.randomBytes(4).toString("hex")}`;

  it("runs on the provider that DATABASE_URL names", async () => {
    await use();
    expect(storeProvider()).toBe(name);
  });

  it("creates the first admin once, then refuses setup", async () => {
    await use();
    await db().user.deleteMany({});
    expect(await setupNeeded()).toBe(true);
    const admin = await setupFirstAdmin(unique(), "a-long-password", "127.0.0.1");
    expect(admin.role).toBe("admin");
    await expect(setupFirstAdmin(unique(), "another-password", "127.0.0.1")).rejects.toMatchObject({ code: "forbidden" });
    expect(await db().user.count()).toBe(1);
  });

  it("checks passwords, keeps sessions hashed, and expires them", async () => {
    await use();
    const username = unique();
    const user = await createUser(username, "correct-horse-battery", "operator");
    await expect(checkLogin(username, "wrong-password!", "10.9.9.9")).rejects.toMatchObject({ code: "unauthenticated" });
    expect((await checkLogin(username, "correct-horse-battery", "10.9.9.9")).id).toBe(user.id);
    const { token } = await createSession(user.id);
    expect(await db().session.findUnique({ where: { id: token } })).toBeNull();
    expect((await findSessionUser(token))?.username).toBe(username);
    await db().session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await findSessionUser(token)).toBeNull();
    const second = await createSession(user.id);
    await deleteSession(second.token);
    expect(await findSessionUser(second.token)).toBeNull();
  });

  it("rate-limits failed logins per user and says when to retry", async () => {
    await use();
    const username = unique();
    await createUser(username, "correct-horse-battery", "viewer");
    for (let i = 0; i < 5; i++) {
      await expect(checkLogin(username, "nope-nope-nope", `10.0.0.${i}`)).rejects.toMatchObject({ code: "unauthenticated" });
    }
    const limited = await checkLogin(username, "correct-horse-battery", "10.0.0.99").catch((error) => error);
    expect(limited).toMatchObject({ code: "rate_limited" });
    expect(Number(limited.headers["Retry-After"])).toBeGreaterThan(0);
  });

  it("keeps failed logins in the store, where every replica counts them, until the window is over", async () => {
    await use();
    const username = unique();
    for (let i = 0; i < 5; i++) await recordLoginFailure("10.1.1.1", username);
    // Another replica asks the same store: it refuses too, and says for how long.
    expect(await loginRetryAfterSeconds("10.9.9.9", username)).toBeGreaterThan(14 * 60);
    expect(await loginRetryAfterSeconds("10.1.1.1", unique())).toBeGreaterThan(14 * 60);
    expect(await loginRetryAfterSeconds("10.9.9.9", username, Date.now() + 16 * 60_000)).toBe(0);
    await clearLoginFailures("10.1.1.1", username);
    expect(await loginRetryAfterSeconds("10.1.1.1", username)).toBe(0);
  });

  it("stores API tokens hashed and stops accepting revoked ones", async () => {
    await use();
    const user = await createUser(unique(), "correct-horse-battery", "admin");
    const { token, info } = await createToken("ci", "user", user.id);
    expect(token.startsWith("vt_")).toBe(true);
    expect(await db().apiToken.findFirst({ where: { tokenHash: token } })).toBeNull();
    expect((await findToken(token))?.id).toBe(info.id);
    expect((await listTokens()).some((entry) => entry.id === info.id)).toBe(true);
    await revokeToken(info.id);
    expect(await findToken(token)).toBeNull();
    await expect(revokeToken(info.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("changes roles and removes users, always keeping an admin, and signs a removed user out", async () => {
    await use();
    await db().user.deleteMany({});
    const first = await createUser(unique(), "correct-horse-battery", "admin");
    const second = await createUser(unique(), "correct-horse-battery", "operator");
    await expect(changeRole(first.id, "viewer")).rejects.toMatchObject({ code: "conflict", message: `${first.username} is the last admin: make another user admin first.` });
    await expect(removeUser(first.id, second.id)).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining("last admin") });
    await expect(removeUser(first.id, first.id)).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining("your own account") });
    expect((await db().user.findUniqueOrThrow({ where: { id: first.id } })).role).toBe("admin");

    expect((await changeRole(second.id, "admin")).role).toBe("admin");
    const session = await createSession(second.id);
    const { token } = await createToken("ci", "user", second.id);
    expect((await findSessionUser(session.token))?.id).toBe(second.id);
    expect((await removeUser(second.id, first.id)).username).toBe(second.username);
    expect(await findSessionUser(session.token)).toBeNull();
    expect(await findToken(token)).toBeNull();
    expect(await db().user.count()).toBe(1);
    await expect(removeUser(second.id, first.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(changeRole(second.id, "viewer")).rejects.toMatchObject({ code: "not_found" });
  });

  it("keeps the audit log newest first with a cursor", async () => {
    await use();
    const actor = unique();
    for (let i = 0; i < 3; i++) await recordAudit({ actor, event: "test", outcome: "ok", message: `m${i}`, details: { i } });
    const first = await listAudit(2);
    expect(first.items.map((item) => item.message)).toEqual(["m2", "m1"]);
    expect(first.items[0].details).toEqual({ i: 2 });
    const second = await listAudit(1, first.nextCursor!);
    expect(second.items[0].message).toBe("m0");
  });

  it("enforces one action per requester and idempotency key", async () => {
    await use();
    const data = { kind: "purge", target: "{}", params: "{}", idempotencyKey: "same-key-123", requestedBy: unique(), state: "pending" };
    await db().action.create({ data });
    await expect(db().action.create({ data })).rejects.toThrow();
    expect(await db().action.count({ where: { requestedBy: data.requestedBy } })).toBe(1);
  });
});
