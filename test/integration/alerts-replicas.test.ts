// Two Varal replicas on one PostgreSQL store: each alert transition is notified exactly
// once (one leader evaluates, by an advisory lock), and the other takes over when the
// leader stops. Also: promtool accepts /metrics.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import Redis from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Session, startServer, type RunningServer } from "../support/server";
import { startReceiver } from "../support/webhook-receiver";
import { waitFor } from "../support/wait";

const TOKEN = crypto.randomBytes(24).toString("hex");
const prefix = `replicas-${crypto.randomBytes(3).toString("hex")}`;
const redis = new Redis("redis://127.0.0.1:6379");
const servers: RunningServer[] = [];
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const config = `pollIntervalMs: 500
alerts: { evaluationIntervalMs: 300, retryBaseMs: 50, retryMaxMs: 500, maxAttempts: 5, timeoutMs: 2000 }
brokers:
  - { name: redis, kind: redis, keyPattern: "${prefix}*" }
`;

async function leaderAndFollower(): Promise<[RunningServer, RunningServer]> {
  const roles = await waitFor(async () => {
    const leaders = await Promise.all(servers.map(async (server) => (await (await fetch(`${server.url}/api/health`)).json()).alertsLeader as boolean));
    return leaders.filter(Boolean).length === 1 ? leaders : null;
  }, { what: "exactly one leader", timeoutMs: 20_000 });
  return roles[0] ? [servers[0], servers[1]] : [servers[1], servers[0]];
}

beforeAll(async () => {
  receiver = await startReceiver();
  const env = { DATABASE_URL: inject("postgresUrl"), VARAL_ADMIN_TOKEN: TOKEN };
  for (let i = 0; i < 2; i++) servers.push(await startServer({ scratch: inject("scratch"), env, config }));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await receiver.close();
  await redis.del(`${prefix}:jobs`);
  redis.disconnect();
});

describe("two replicas on PostgreSQL", () => {
  it("notify each transition exactly once, and the follower takes over when the leader stops", async () => {
    const api = new Session(servers[0].url, { bearer: TOKEN, origin: null });
    const channel = await api.call("POST", "/api/alerts/channels", { name: "receiver", kind: "alertmanager", url: receiver.url });
    expect(channel.status).toBe(201);
    const rule = await api.call("POST", "/api/alerts/rules", {
      name: `jobs waiting ${prefix}`,
      metric: "depth",
      match: { broker: "redis", queue: `${prefix}:jobs` },
      op: ">",
      threshold: 0,
      for: "0s",
      resolveAfter: "0s",
      channels: [channel.json.id],
    });
    expect(rule.status).toBe(201);
    const [leader, follower] = await leaderAndFollower();

    await redis.lpush(`${prefix}:jobs`, "x");
    await waitFor(() => receiver.received.length >= 1, { what: "the firing notification", timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.received.map((request) => JSON.parse(request.body).status)).toEqual(["firing"]);

    await leader.stop();
    servers.splice(servers.indexOf(leader), 1);
    await waitFor(async () => (await (await fetch(`${follower.url}/api/health`)).json()).alertsLeader === true, { what: "the follower to lead", timeoutMs: 20_000 });
    await redis.del(`${prefix}:jobs`);
    await waitFor(() => receiver.received.length >= 2, { what: "the resolved notification", timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(receiver.received.map((request) => JSON.parse(request.body).status)).toEqual(["firing", "resolved"]);

    const alerts = await new Session(follower.url, { bearer: TOKEN, origin: null }).call("GET", "/api/alerts");
    expect(alerts.json.find((alert: { rule: string }) => alert.rule === `jobs waiting ${prefix}`)).toMatchObject({ state: "resolved" });
  });

  it("serves /metrics that promtool accepts", async () => {
    const metrics = await new Session(servers[0].url, { bearer: TOKEN, origin: null }).call("GET", "/metrics");
    expect(metrics.status).toBe(200);
    const output = execFileSync("promtool", ["check", "metrics"], { input: metrics.json, encoding: "utf8" });
    expect(output).toBe("");
  });
});
