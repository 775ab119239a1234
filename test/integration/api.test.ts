// The HTTP API of a real server: authentication, roles, input errors, and that a refused
// request changes nothing.
import crypto from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Session, startServer, type RunningServer } from "../support/server";
import { startTcpProxy } from "../support/tcp-proxy";
import { waitFor } from "../support/wait";

const ADMIN_TOKEN = crypto.randomBytes(24).toString("hex");
const prefix = `varal-api:${crypto.randomBytes(4).toString("hex")}`;
const redis = new Redis("redis://127.0.0.1:6379");
let server: RunningServer;
let admin: Session;
/** The same Redis as a second broker whose connections pass through a proxy a test cuts. */
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;

beforeAll(async () => {
  await redis.rpush(`${prefix}:q`, "1", "2");
  proxy = await startTcpProxy(6379);
  server = await startServer({
    scratch: inject("scratch"),
    env: { VARAL_ADMIN_TOKEN: ADMIN_TOKEN },
    config: [
      "pollIntervalMs: 1000",
      "brokers:",
      `  - { name: redis, kind: redis, keyPattern: "${prefix}*" }`,
      `  - { name: redis-cut, kind: redis, url: "redis://127.0.0.1:${proxy.port}", keyPattern: "${prefix}*" }`,
      "",
    ].join("\n"),
  });
  admin = new Session(server.url);
});

afterAll(async () => {
  await proxy.cut();
  await server?.stop();
  await redis.del(`${prefix}:q`);
  redis.disconnect();
});

describe("HTTP API", () => {
  it("answers health without authentication and everything else with 401", async () => {
    const anonymous = new Session(server.url);
    expect((await anonymous.call("GET", "/api/health")).json).toMatchObject({ status: "ok", store: "sqlite", version: "0.1.0" });
    // One process on the embedded store evaluates alerts itself.
    await waitFor(async () => (await anonymous.call("GET", "/api/health")).json.alertsLeader === true, { what: "the alerts leader", timeoutMs: 10_000 });
    for (const route of ["/api/brokers", "/api/queues", "/api/actions", "/api/audit", "/metrics", "/api/auth/me"]) {
      const response = await anonymous.call("GET", route);
      expect(response.status, route).toBe(401);
      expect(response.json.error.code, route).toBe("unauthenticated");
    }
    expect((await new Session(server.url, { bearer: "vt_wrong" }).call("GET", "/api/brokers")).status).toBe(401);
  });

  it("sets up the first admin once, with an httpOnly SameSite cookie", async () => {
    expect((await admin.call("GET", "/api/setup")).json).toEqual({ setupNeeded: true });
    const bad = await admin.call("POST", "/api/setup", { username: "x", password: "short" });
    expect(bad.status).toBe(400);
    expect(bad.json.error.details.map((issue: { path: string[] }) => issue.path.join("."))).toEqual(["username", "password"]);
    const created = await admin.call("POST", "/api/setup", { username: "root-admin", password: "correct-horse-battery" });
    expect(created.status).toBe(201);
    expect(created.headers.get("set-cookie")).toMatch(/varal_session=vs_[^;]+; Path=\/; HttpOnly; SameSite=Lax/);
    expect((await admin.call("GET", "/api/auth/me")).json).toEqual({ name: "root-admin", kind: "user", role: "admin" });
    const again = await new Session(server.url).call("POST", "/api/setup", { username: "intruder", password: "correct-horse-battery" });
    expect(again.status).toBe(403);
  });

  it("refuses cookie mutations without a same-origin Origin header", async () => {
    for (const origin of [null, "http://evil.example"]) {
      const session = new Session(server.url, { origin });
      session.cookie = admin.cookie;
      const response = await session.call("POST", "/api/users", { username: "sneaky", password: "correct-horse-battery", role: "admin" });
      expect(response.status).toBe(403);
    }
    const users = await admin.call("GET", "/api/users");
    expect(users.json.map((user: { username: string }) => user.username)).toEqual(["root-admin"]);
  });

  it("gives 400 with zod issues, 404 for an unknown queue, and changes nothing", async () => {
    const badQuery = await admin.call("GET", "/api/queues?limit=abc&sort=sideways");
    expect(badQuery.status).toBe(400);
    expect(badQuery.json.error.details.length).toBe(2);
    const badAction = await admin.call("POST", "/api/actions", { kind: "explode", target: {}, idempotencyKey: "k" });
    expect(badAction.status).toBe(400);
    expect(badAction.json.error.message).toMatch(/^Invalid body: kind:/);
    const notJson = await fetch(`${server.url}/api/actions`, {
      method: "POST",
      headers: { cookie: admin.cookie!, origin: server.url, "content-type": "application/json" },
      body: "{not json",
    });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.message).toBe("The request body is not valid JSON.");
    const unknown = await admin.call("GET", `/api/queues/redis/${encodeURIComponent(`${prefix}:nope`)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("see GET /api/queues");
    expect((await admin.call("GET", "/api/queues/nobroker/x")).status).toBe(404);
    expect((await admin.call("GET", "/api/actions")).json.items).toEqual([]);
  });

  it("serves a queue whose name holds ':' and its history", async () => {
    const id = encodeURIComponent(`${prefix}:q`);
    const queue = await waitFor(async () => {
      const response = await admin.call("GET", `/api/queues/redis/${id}`);
      return response.status === 200 ? response.json : null;
    }, { what: "the queue to be polled" });
    expect(queue).toMatchObject({ id: `redis/${prefix}:q`, depth: 2, type: "list", actions: ["purge"], browsable: true });
    const history = await admin.call("GET", `/api/queues/redis/${id}/history?metric=depth&range=15m`);
    expect(history.json.points.at(-1)[1]).toBe(2);
    expect((await admin.call("GET", `/api/queues/redis/${id}/history?metric=bogus`)).status).toBe(400);
  });

  it("answers a refusal by a broker's action handler with its code and message, changing nothing", async () => {
    await waitFor(async () => (await admin.call("GET", `/api/queues/redis/${encodeURIComponent(`${prefix}:q`)}`)).status === 200, { what: "the queue to be polled" });
    const target = { queue: `redis/${prefix}:q` };
    const wrongName = await admin.call("POST", "/api/actions", { kind: "purge", target, params: { confirm: "q" }, idempotencyKey: crypto.randomUUID() });
    expect(wrongName.status).toBe(400);
    expect(wrongName.json.error.message).toBe(`To purge, type the queue's name exactly: params.confirm must be "${prefix}:q".`);
    const notDeadLetters = await admin.call("POST", "/api/actions", { kind: "redrive", target, params: {}, idempotencyKey: crypto.randomUUID() });
    expect(notDeadLetters.status).toBe(400);
    expect(notDeadLetters.json.error.message).toContain("give params.destination");
    expect(await redis.llen(`${prefix}:q`)).toBe(2);
  });

  it("answers 503 naming the broker when a preview or a read cannot reach it", async () => {
    const id = `redis-cut/${encodeURIComponent(`${prefix}:q`)}`;
    await waitFor(async () => (await admin.call("GET", `/api/queues/${id}`)).status === 200, { what: "the queue polled through the proxy" });
    await proxy.cut();
    const preview = await admin.call("POST", "/api/actions", {
      kind: "purge",
      target: { queue: `redis-cut/${prefix}:q` },
      params: { confirm: `${prefix}:q` },
      dryRun: true,
      idempotencyKey: crypto.randomUUID(),
    });
    expect(preview.status).toBe(503);
    expect(preview.json.error.message).toMatch(/^The preview of purge on redis-cut\/.* needs broker redis-cut, which failed: .*Check that it is up and reachable, then try again\.$/);
    const read = await admin.call("GET", `/api/queues/${id}/messages`);
    expect(read.status).toBe(503);
    expect(read.json.error.message).toContain("needs broker redis-cut, which failed");
    expect(await redis.llen(`${prefix}:q`)).toBe(2);
  });

  it("gives a viewer 403 on admin routes and on actions, and audits the refused action", async () => {
    expect((await admin.call("POST", "/api/users", { username: "vic", password: "correct-horse-battery", role: "viewer" })).status).toBe(201);
    const viewer = new Session(server.url);
    expect((await viewer.call("POST", "/api/auth/login", { username: "vic", password: "correct-horse-battery" })).status).toBe(200);
    expect((await viewer.call("GET", "/api/queues")).status).toBe(200);
    expect((await viewer.call("GET", "/api/users")).status).toBe(403);
    const action = await viewer.call("POST", "/api/actions", {
      kind: "purge",
      target: { queue: `redis/${prefix}:q` },
      params: { confirm: `${prefix}:q` },
      idempotencyKey: crypto.randomUUID(),
    });
    expect(action.status).toBe(403);
    expect(action.json.error.message).toContain("may not run actions");
    expect(await redis.llen(`${prefix}:q`)).toBe(2);
    const audit = await admin.call("GET", "/api/audit?limit=50");
    expect(audit.json.items.find((item: { actor: string; event: string }) => item.actor === "vic" && item.event === "action.purge")).toMatchObject({
      outcome: "refused",
    });
  });

  it("accepts API tokens and VARAL_ADMIN_TOKEN, and stops accepting a revoked token", async () => {
    const created = await admin.call("POST", "/api/tokens", { name: "automation" });
    expect(created.status).toBe(201);
    const bearer = new Session(server.url, { bearer: created.json.token, origin: null });
    expect((await bearer.call("GET", "/api/auth/me")).json).toMatchObject({ kind: "token", role: "admin" });
    // A bearer token is not a cookie: no Origin needed for automation.
    expect((await bearer.call("POST", "/api/tokens", { name: "second" })).status).toBe(201);
    expect((await admin.call("DELETE", `/api/tokens/${created.json.id}`)).status).toBe(200);
    expect((await bearer.call("GET", "/api/auth/me")).status).toBe(401);
    const env = new Session(server.url, { bearer: ADMIN_TOKEN, origin: null });
    expect((await env.call("GET", "/api/auth/me")).json).toMatchObject({ kind: "admin-token", role: "admin" });
    const agent = await admin.call("POST", "/api/tokens", { name: "host-1", kind: "agent" });
    const agentSession = new Session(server.url, { bearer: agent.json.token });
    expect((await agentSession.call("GET", "/api/queues")).status).toBe(403);
  });

  it("limits failed logins with 429 and Retry-After", async () => {
    const guesser = new Session(server.url);
    for (let i = 0; i < 5; i++) {
      expect((await guesser.call("POST", "/api/auth/login", { username: "vic", password: `guess-${i}` })).status).toBe(401);
    }
    const limited = await guesser.call("POST", "/api/auth/login", { username: "vic", password: "correct-horse-battery" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("exposes Prometheus metrics from the snapshot cache", async () => {
    const metrics = await admin.call("GET", "/metrics");
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    expect(metrics.json).toContain('varal_broker_up{broker="redis",kind="redis"} 1');
    expect(metrics.json).toContain(`varal_queue_depth_messages{broker="redis",queue="${prefix}:q"} 2`);
  });
});
