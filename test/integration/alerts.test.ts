// Alerts end to end in one process: a rule on a real Redis queue, a signed webhook to a
// local receiver checked with the standardwebhooks package, retries, dead deliveries and
// redelivery, a restart with deliveries pending, and the errors operators see.
import crypto from "node:crypto";
import Redis from "ioredis";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DeliveryWorker, listDeliveries, redeliver } from "@/server/alerts/delivery";
import { AlertEngine } from "@/server/alerts/engine";
import { listActiveAlerts } from "@/server/alerts/queries";
import { channelInput, createChannel, createRule, createSilence, deleteChannel, endSilence, listSilences, ruleInput, updateRule } from "@/server/alerts/rules";
import { newWebhookSecret } from "@/server/alerts/sign";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { parseConfig } from "@/server/config/load";
import { db, disconnectDb } from "@/server/db/client";
import { useFreshSqlite } from "../support/store";
import { startReceiver } from "../support/webhook-receiver";
import { waitFor } from "../support/wait";

const redis = new Redis("redis://127.0.0.1:6379");
const prefix = `alerts-${crypto.randomBytes(3).toString("hex")}`;
const settings = { retryBaseMs: 40, retryMaxMs: 1_000, maxAttempts: 4, timeoutMs: 500 };
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  await startCollectors(parseConfig({ pollIntervalMs: 60_000, brokers: [{ name: "redis", kind: "redis", keyPattern: `${prefix}*` }] }, "test"), { persistHistory: false });
});

beforeEach(async () => {
  await useFreshSqlite();
  receiver.received.length = 0;
  receiver.behave("ok");
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
});

afterAll(async () => {
  await stopCollectors();
  await disconnectDb();
  await receiver.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

async function deliverAll(worker: DeliveryWorker): Promise<void> {
  await waitFor(async () => {
    await worker.runOnce();
    return (await db().alertDelivery.count({ where: { state: "pending" } })) === 0;
  }, { what: "every delivery settled", timeoutMs: 20_000, intervalMs: 20 });
}

describe("alerts", () => {
  it("fires once, signed so an independent verifier accepts it, then resolves once", async () => {
    const secret = newWebhookSecret();
    const channel = await createChannel({ name: "on-call", kind: "webhook", url: receiver.url, secret });
    await createRule(ruleInput.parse({ name: "jobs waiting", metric: "depth", match: { broker: "redis", queue: `${prefix}:jobs` }, op: ">", threshold: 0, resolveAfter: "0s", channels: [channel.id] }));
    const engine = new AlertEngine(() => "http://varal.example");
    const worker = new DeliveryWorker(settings);
    await redis.lpush(`${prefix}:jobs`, "a");
    await pollAllNow();
    await engine.cycle();
    await engine.cycle();
    await deliverAll(worker);
    expect(receiver.received.length).toBe(1);
    const [firing] = receiver.received;
    const verified = new Webhook(secret).verify(firing.body, firing.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
    expect(verified).toMatchObject({ type: "alert.firing", data: { labels: { broker: "redis", queue: `${prefix}:jobs` }, value: 1, url: `http://varal.example/queues/redis/${encodeURIComponent(`${prefix}:jobs`)}` } });

    await redis.del(`${prefix}:jobs`);
    await pollAllNow();
    await engine.cycle();
    await engine.cycle();
    await deliverAll(worker);
    expect(receiver.received.map((request) => JSON.parse(request.body).type)).toEqual(["alert.firing", "alert.resolved"]);
    await engine.stop();
  });

  it("retries with exponential backoff, then succeeds; an always-failing receiver gives a dead delivery that redelivers", async () => {
    const channel = await createChannel({ name: "flaky", kind: "alertmanager", url: receiver.url });
    const worker = new DeliveryWorker(settings);
    const engine = new AlertEngine();
    await createRule(ruleInput.parse({ name: "stuck", metric: "depth", match: { broker: "redis" }, op: ">=", threshold: 1, channels: [channel.id] }));
    receiver.behave("fail", 2);
    await redis.lpush(`${prefix}:a`, "x");
    await pollAllNow();
    await engine.cycle();
    await deliverAll(worker);
    expect(receiver.received.length).toBe(3);
    const gaps = receiver.received.slice(1).map((request, index) => request.at - receiver.received[index].at);
    // Equal jitter: retry n waits between half and all of base * 2^(n-1).
    expect(gaps[0]).toBeGreaterThanOrEqual(settings.retryBaseMs / 2);
    expect(gaps[1]).toBeGreaterThanOrEqual(settings.retryBaseMs);
    expect(JSON.parse(receiver.received[2].body)).toMatchObject({ version: "4", status: "firing", alerts: [{ labels: { alertname: "stuck", queue: `${prefix}:a` } }] });
    expect((await listDeliveries("delivered", 10))[0]).toMatchObject({ attempts: 3, lastError: null });

    receiver.received.length = 0;
    receiver.behave("fail");
    await redis.lpush(`${prefix}:b`, "x");
    await pollAllNow();
    await engine.cycle();
    await deliverAll(worker);
    const [dead] = await listDeliveries("dead", 10);
    expect(dead).toMatchObject({ attempts: settings.maxAttempts, lastError: `${receiver.url} answered 500` });
    expect(receiver.received.length).toBe(settings.maxAttempts);
    receiver.behave("ok");
    await redeliver(dead.id);
    await expect(redeliver(dead.id)).rejects.toMatchObject({ code: "conflict" });
    await deliverAll(worker);
    expect((await listDeliveries(undefined, 10)).find((delivery) => delivery.id === dead.id)).toMatchObject({ state: "delivered" });
    await engine.stop();
  });

  it("sends deliveries left pending by a process that stopped", async () => {
    const channel = await createChannel({ name: "slack", kind: "slack", url: receiver.url });
    const engine = new AlertEngine();
    await createRule(ruleInput.parse({ name: "backlog", metric: "depth", match: {}, op: ">", threshold: 0, channels: [channel.id] }));
    await redis.lpush(`${prefix}:c`, "x");
    await pollAllNow();
    await engine.cycle();
    await engine.stop();
    expect(await db().alertDelivery.count({ where: { state: "pending" } })).toBe(1);
    // A new process: a new worker finds the row and sends it.
    await deliverAll(new DeliveryWorker(settings));
    expect(JSON.parse(receiver.received[0].body).text).toContain("*FIRING* backlog");
  });

  it("records a redirect and a timeout as errors that say what to do, without blocking other rules", async () => {
    const redirecting = await createChannel({ name: "moved", kind: "alertmanager", url: receiver.url });
    const worker = new DeliveryWorker({ ...settings, maxAttempts: 1 });
    const engine = new AlertEngine();
    await createRule(ruleInput.parse({ name: "one", metric: "depth", match: { queue: `${prefix}:d` }, op: ">", threshold: 0, channels: [redirecting.id] }));
    await createRule(ruleInput.parse({ name: "two", metric: "depth", match: { queue: `${prefix}:e` }, op: ">", threshold: 0, channels: [redirecting.id] }));
    await redis.lpush(`${prefix}:d`, "x");
    await pollAllNow();
    receiver.behave("redirect");
    await engine.cycle();
    await deliverAll(worker);
    expect((await listDeliveries("dead", 10))[0].lastError).toMatch(/answered a redirect \(302\) to http:\/\/127\.0\.0\.1:9\/elsewhere: Varal does not follow redirects/);
    receiver.behave("hang");
    await redis.lpush(`${prefix}:e`, "x");
    await pollAllNow();
    const started = Date.now();
    await engine.cycle();
    expect(Date.now() - started).toBeLessThan(1_000);
    await deliverAll(worker);
    expect((await listDeliveries("dead", 10))[0].lastError).toBe(`${receiver.url}: no answer within ${settings.timeoutMs} ms`);
    await engine.stop();
  });

  it("keeps a silenced transition out of the outbox", async () => {
    const channel = await createChannel({ name: "quiet", kind: "slack", url: receiver.url });
    const engine = new AlertEngine();
    await createRule(ruleInput.parse({ name: "noisy", metric: "depth", match: {}, op: ">", threshold: 0, channels: [channel.id] }));
    await createSilence({ match: { queue: `${prefix}:f` }, endsAt: new Date(Date.now() + 60_000).toISOString() }, "ops");
    await redis.lpush(`${prefix}:f`, "x");
    await pollAllNow();
    await engine.cycle();
    expect(await db().alertState.count({ where: { state: "firing" } })).toBe(1);
    expect(await db().alertDelivery.count()).toBe(0);
    // Another queue, not silenced, fires and is sent; the page shows both, one marked silenced.
    await redis.lpush(`${prefix}:f2`, "x");
    await pollAllNow();
    await engine.cycle();
    expect(await db().alertDelivery.count()).toBe(1);
    const shown = (await listActiveAlerts()).map((alert) => [alert.labels.queue, alert.state, alert.silenced]);
    expect(shown.sort()).toEqual([
      [`${prefix}:f`, "firing", true],
      [`${prefix}:f2`, "firing", false],
    ]);
    await engine.stop();
  });

  it("deletes a channel only once no rule sends to it, ends a silence early, and fires no rule turned off", async () => {
    const channel = await createChannel({ name: "pager", kind: "slack", url: receiver.url });
    const rule = await createRule(ruleInput.parse({ name: "deep", metric: "depth", match: { queue: `${prefix}:g` }, op: ">", threshold: 0, channels: [channel.id] }));
    await expect(deleteChannel(channel.id)).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining('"deep"') });
    expect(await db().alertChannel.count()).toBe(1);

    const silence = await createSilence({ match: { queue: `${prefix}:g` }, endsAt: new Date(Date.now() + 3_600_000).toISOString() }, "ops");
    await endSilence(silence.id);
    expect(await listSilences()).toEqual([]);
    await expect(endSilence(silence.id)).rejects.toMatchObject({ code: "not_found" });

    await updateRule(rule.id, ruleInput.parse({ ...rule, enabled: false }));
    await redis.lpush(`${prefix}:g`, "x");
    await pollAllNow();
    const engine = new AlertEngine();
    await engine.cycle();
    expect(await db().alertState.count({ where: { state: "firing" } })).toBe(0);
    // On again it fires, and with the silence over the transition is in the outbox.
    await updateRule(rule.id, ruleInput.parse({ ...rule, enabled: true }));
    await engine.cycle();
    expect(await db().alertState.count({ where: { state: "firing" } })).toBe(1);
    expect(await db().alertDelivery.count({ where: { channelId: channel.id } })).toBe(1);
    await engine.stop();

    await updateRule(rule.id, ruleInput.parse({ ...rule, channels: [] }));
    await deleteChannel(channel.id);
    expect(await db().alertChannel.count()).toBe(0);
    await expect(deleteChannel(channel.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses an unknown metric, an invalid duration, a missing webhook secret and a channel that does not exist", async () => {
    const metric = ruleInput.safeParse({ name: "x", metric: "queueVibes", op: ">", threshold: 1 });
    expect(metric.success).toBe(false);
    expect(metric.error!.issues[0].message).toContain("one of depth, inflight");
    const duration = ruleInput.safeParse({ name: "x", metric: "depth", op: ">", threshold: 1, for: "5 minutes" });
    expect(duration.error!.issues[0].message).toBe('a duration such as "30s", "5m", "2h" or "1d"');
    await expect(createChannel(channelInput.parse({ name: "x", kind: "webhook", url: receiver.url }))).rejects.toMatchObject({ code: "invalid_input", message: expect.stringContaining("give a secret") });
    await expect(createRule(ruleInput.parse({ name: "x", metric: "depth", op: ">", threshold: 1, channels: ["nope"] }))).rejects.toMatchObject({ code: "invalid_input" });
    expect(await db().alertRule.count()).toBe(0);
  });
});
