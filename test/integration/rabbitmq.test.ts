// RabbitMQ: dead-letter topology from arguments and policies, redrive of classic and
// quorum DLQs with every message counted, a redrive whose connection is closed by force,
// and a re-prioritise whose connection is cut.
import crypto from "node:crypto";
import amqp, { type Channel, type ChannelModel, type GetMessage } from "amqplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBuiltInActions } from "@/server/actions/handlers";
import { browseMessages } from "@/server/brokers/browse";
import { collectorState } from "@/server/collect/state";
import { actionsFor } from "@/server/actions/registry";
import { actionRunner } from "@/server/actions/runner";
import { getAction, requestAction } from "@/server/actions/service";
import { pollAllNow, startCollectors, stopCollectors } from "@/server/collect/collector";
import { getQueue, listBrokers } from "@/server/collect/queries";
import { parseConfig } from "@/server/config/load";
import { disconnectDb } from "@/server/db/client";
import { principal } from "../support/principals";
import { useFreshSqlite } from "../support/store";
import { actionEnded } from "../support/actions";
import { pollUntil } from "../support/poll";
import { startTcpProxy } from "../support/tcp-proxy";
import { waitFor } from "../support/wait";

const MANAGEMENT = "http://127.0.0.1:15672";
const AUTH = `Basic ${Buffer.from("guest:guest").toString("base64")}`;
const run = crypto.randomBytes(3).toString("hex");
const prefix = `rmq-${run}-`;
const operator = principal("operator", "ops");
/** The same RabbitMQ as a second broker whose AMQP connections pass through a proxy a test can cut. */
const CUT = "rabbitmq-cut";
let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
let connection: ChannelModel;
let channel: Channel;
const queues: string[] = [];
const exchanges: string[] = [];

async function management(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${MANAGEMENT}${path}`, { method, headers: { authorization: AUTH, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** A source queue dead-lettering through a direct exchange into a DLQ of the given type. */
async function pair(type: "classic" | "quorum") {
  const base = `${prefix}${type}-${queues.length}`;
  const dlx = `${base}-dlx`;
  await channel.assertExchange(dlx, "direct", { durable: true });
  exchanges.push(dlx);
  const typeArgs = { "x-queue-type": type };
  await channel.assertQueue(`${base}-dlq`, { durable: true, arguments: typeArgs });
  await channel.bindQueue(`${base}-dlq`, dlx, "dead");
  await channel.assertQueue(base, { durable: true, arguments: { ...typeArgs, "x-dead-letter-exchange": dlx, "x-dead-letter-routing-key": "dead" } });
  queues.push(base, `${base}-dlq`);
  return { source: base, dlq: `${base}-dlq` };
}

/**
 * Publishes `count` messages to the source and rejects each, so RabbitMQ dead-letters them.
 * The rejecting consumer stays until the DLQ holds them all: a quorum queue may return a
 * rejected message to the source, and it is rejected again rather than left behind.
 */
async function deadLetter({ source, dlq }: { source: string; dlq: string }, count: number): Promise<string[]> {
  const confirm = await connection.createConfirmChannel();
  const ids = Array.from({ length: count }, (_, i) => `${source}-m${i}`);
  for (const id of ids) confirm.sendToQueue(source, Buffer.from(`body of ${id}`), { messageId: id, persistent: true });
  await confirm.waitForConfirms();
  await confirm.close();
  const reject = await connection.createChannel();
  await reject.prefetch(500);
  await reject.consume(source, (message) => {
    if (message) reject.nack(message, false, false);
  });
  await waitFor(async () => (await readyCount(dlq)) === count, { what: `${count} dead letters in ${dlq}`, timeoutMs: 40_000 });
  await reject.close();
  return ids;
}

async function readyCount(queue: string): Promise<number> {
  return (await channel.checkQueue(queue)).messageCount;
}

/** Takes every message off a queue, returning message ids (duplicates included). */
async function drainIds(queue: string): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const message = await channel.get(queue, { noAck: true });
    if (!message) return ids;
    ids.push(String(message.properties.messageId));
  }
}

async function action(kind: "redrive" | "purge" | "reprioritise", queue: string, params: Record<string, unknown>, broker = "rabbitmq") {
  const outcome = await requestAction(operator, { kind, target: { queue: `${broker}/${queue}` }, params, idempotencyKey: crypto.randomUUID() }, null);
  if (!("action" in outcome)) throw new Error("expected an action");
  return outcome.action.id;
}

beforeAll(async () => {
  await useFreshSqlite();
  registerBuiltInActions();
  connection = await amqp.connect("amqp://guest:guest@127.0.0.1:5672");
  channel = await connection.createChannel();
  proxy = await startTcpProxy(5672);
  const brokers = [
    { name: "rabbitmq", kind: "rabbitmq" },
    { name: CUT, kind: "rabbitmq", url: `amqp://guest:guest@127.0.0.1:${proxy.port}` },
  ];
  await startCollectors(parseConfig({ pollIntervalMs: 60_000, brokers }, "test"), { persistHistory: false });
  await actionRunner().start();
});

afterAll(async () => {
  await proxy.cut().catch(() => undefined);
  await actionRunner().stop();
  await stopCollectors();
  await disconnectDb();
  await management("DELETE", `/api/policies/%2F/${prefix}policy`);
  for (const queue of queues) await channel.deleteQueue(queue).catch(() => undefined);
  for (const exchange of exchanges) await channel.deleteExchange(exchange).catch(() => undefined);
  await connection.close();
});

describe("RabbitMQ", () => {
  it("follows dead-letter arguments and policies through the exchange's bindings", async () => {
    const { source, dlq } = await pair("classic");
    const byPolicy = `${prefix}policy-source`;
    await channel.assertQueue(byPolicy, { durable: true });
    queues.push(byPolicy);
    expect(
      (await management("PUT", `/api/policies/%2F/${prefix}policy`, { pattern: `^${prefix}policy-`, definition: { "dead-letter-exchange": `${source}-dlx`, "dead-letter-routing-key": "dead" }, "apply-to": "queues" })).status,
    ).toBeLessThan(300);
    const orphan = `${prefix}orphan`;
    await channel.assertQueue(orphan, { durable: true, arguments: { "x-dead-letter-exchange": `${source}-dlx`, "x-dead-letter-routing-key": "nowhere" } });
    queues.push(orphan);
    await pollUntil(() => getQueue(`rabbitmq/${byPolicy}`).dlq?.id === `rabbitmq/${dlq}`, "the policy's dead-letter exchange to show");
    expect(getQueue(`rabbitmq/${source}`)).toMatchObject({ dlq: { id: `rabbitmq/${dlq}` }, facts: { deadLetterFrom: "arguments", deadLetterExchange: `${source}-dlx` } });
    expect(getQueue(`rabbitmq/${byPolicy}`).facts).toMatchObject({ deadLetterFrom: "policy" });
    expect(getQueue(`rabbitmq/${dlq}`).sources.map((entry) => entry.id).sort()).toEqual([`rabbitmq/${byPolicy}`, `rabbitmq/${source}`].sort());
    expect(getQueue(`rabbitmq/${orphan}`).facts.warnings).toEqual([expect.stringContaining("routes them to no queue: they are dropped")]);
    expect(actionsFor(getQueue(`rabbitmq/${dlq}`))).toEqual(["redrive", "purge"]);
    expect(actionsFor(getQueue(`rabbitmq/${source}`))).toEqual(["purge"]);
    expect(listBrokers()[0].facts.exchangesWithoutAlternate).toEqual(expect.arrayContaining([`${source}-dlx`]));
  });

  it("flags unlimited prefetch and reads a quorum delivery limit", async () => {
    const limited = `${prefix}limited`;
    await channel.assertQueue(limited, { durable: true, arguments: { "x-queue-type": "quorum", "x-delivery-limit": 5 } });
    queues.push(limited);
    const hoarder = await connection.createChannel();
    await hoarder.consume(limited, () => undefined);
    await pollUntil(() => (getQueue(`rabbitmq/${limited}`).facts.consumerPrefetch as number[]).length === 1, "the consumer to show");
    expect(getQueue(`rabbitmq/${limited}`).facts).toMatchObject({ deliveryLimit: 5, queueType: "quorum", consumerPrefetch: [0] });
    expect(getQueue(`rabbitmq/${limited}`).facts.warnings).toEqual([expect.stringContaining("unlimited prefetch")]);
    await hoarder.close();
  });

  for (const type of ["classic", "quorum"] as const) {
    it(`redrives a ${type} DLQ back where each message died, every message counted`, async () => {
      const { source, dlq } = await pair(type);
      const ids = await deadLetter({ source, dlq }, 200);
      await pollUntil(() => getQueue(`rabbitmq/${dlq}`).sources.length === 1, "the DLQ's source");
      const done = await actionEnded(await action("redrive", dlq, {}));
      expect(done).toMatchObject({ state: "succeeded", result: { moved: 200 } });
      expect(await readyCount(dlq)).toBe(0);
      expect((await drainIds(source)).sort()).toEqual([...ids].sort());
    });
  }

  it("keeps a redrive to its pace, however fast the broker delivers", async () => {
    const { source, dlq } = await pair("quorum");
    const ids = await deadLetter({ source, dlq }, 400);
    await pollUntil(() => getQueue(`rabbitmq/${dlq}`).sources.length === 1, "the DLQ's source");
    const started = Date.now();
    const done = await actionEnded(await action("redrive", dlq, { maxPerSecond: 200 }));
    expect(done).toMatchObject({ state: "succeeded", result: { moved: 400 } });
    // 400 at 200 a second, less the tenth of a second's worth it may hold ahead: 1.9 s at least.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    expect((await drainIds(source)).sort()).toEqual([...ids].sort());
  });

  it("loses nothing when the redrive's connection is closed by force halfway", async () => {
    const total = 3000;
    const { source, dlq } = await pair("quorum");
    const ids = await deadLetter({ source, dlq }, total);
    await pollUntil(() => getQueue(`rabbitmq/${dlq}`).sources.length === 1, "the DLQ's source");
    const id = await action("redrive", dlq, { maxPerSecond: 250 });
    await waitFor(async () => (await readyCount(source)) > 300, { what: "the redrive under way" });
    // The management API lists a connection once its statistics arrive, a few seconds in.
    const ours = await waitFor(async () => {
      const connections = (await (await management("GET", "/api/connections?columns=name,client_properties")).json()) as Array<{
        name: string;
        client_properties: { connection_name?: string };
      }>;
      const found = connections.filter((entry) => entry.client_properties.connection_name === `varal redrive ${dlq}`);
      return found.length > 0 ? found : null;
    }, { what: "the redrive's connection in the management API", timeoutMs: 15_000, intervalMs: 250 });
    expect(ours.length).toBe(1);
    expect(await readyCount(dlq)).toBeGreaterThan(0);
    expect((await management("DELETE", `/api/connections/${encodeURIComponent(ours[0].name)}`)).status).toBeLessThan(300);
    const done = await actionEnded(id);
    expect(done).toMatchObject({ state: "failed", error: expect.stringContaining("closed during the redrive") });
    const seen = [...(await drainIds(source)), ...(await drainIds(dlq))];
    // Each message is somewhere; a message copied but not yet acked is in both, same id.
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen.length).toBeGreaterThanOrEqual(total);
  });

  it("stops at a message with no x-death, asking for a destination, and keeps it", async () => {
    const { source, dlq } = await pair("classic");
    channel.sendToQueue(dlq, Buffer.from("put here by hand"), { messageId: "manual-1" });
    await waitFor(async () => (await readyCount(dlq)) === 1, { what: "the message" });
    await pollUntil(() => getQueue(`rabbitmq/${dlq}`).sources.length === 1, "the DLQ's source");
    const done = await actionEnded(await action("redrive", dlq, {}));
    expect(done).toMatchObject({ state: "failed", error: expect.stringContaining("has no x-death header") });
    expect(await readyCount(dlq)).toBe(1);
    const moved = await actionEnded(await action("redrive", dlq, { destination: source }));
    expect(moved).toMatchObject({ state: "succeeded", result: { moved: 1 } });
    expect(await drainIds(source)).toEqual(["manual-1"]);
  });

  it("purges through the management API", async () => {
    const { source, dlq } = await pair("classic");
    await deadLetter({ source, dlq }, 20);
    await pollUntil(() => getQueue(`rabbitmq/${dlq}`).depth !== null, "the DLQ");
    expect((await actionEnded(await action("purge", dlq, { confirm: dlq }))).state).toBe("succeeded");
    expect(await readyCount(dlq)).toBe(0);
  });

  it("asks before reading, then shows x-death; a quorum DLQ keeps its delivery counts", async () => {
    for (const type of ["classic", "quorum"] as const) {
      const { source, dlq } = await pair(type);
      await deadLetter({ source, dlq }, 3);
      await pollUntil(() => getQueue(`rabbitmq/${dlq}`).sources.length === 1, "the DLQ's source");
      const broker = collectorState().brokers.get("rabbitmq")!.config;
      await expect(browseMessages({ queue: getQueue(`rabbitmq/${dlq}`), broker, limit: 10, confirmSideEffects: false })).rejects.toMatchObject({
        code: "conflict",
        details: { sideEffects: "requeue-order" },
      });
      const page = await browseMessages({ queue: getQueue(`rabbitmq/${dlq}`), broker, limit: 10, confirmSideEffects: true });
      expect(page.sideEffects).toBe("requeue-order");
      expect(page.items.map((item) => item.id).sort()).toEqual([0, 1, 2].map((i) => `${source}-m${i}`));
      expect(page.items[0]).toMatchObject({ reason: `rejected in ${source}`, attempts: 1, payload: { encoding: "utf8" } });
      expect(page.items[0].headers["x-death"]).toEqual([expect.objectContaining({ queue: source, reason: "rejected", count: 1, exchange: "", routingKeys: [source] })]);
      expect(await readyCount(dlq)).toBe(3);
      const again = await channel.get(dlq, { noAck: false });
      if (!again) throw new Error("message missing");
      if (type === "quorum") expect(again.properties.headers?.["x-delivery-count"] ?? 0).toBe(0);
      else expect(again.fields.redelivered).toBe(true);
      channel.nack(again, false, true);
    }
  });

  it("re-prioritises a message of a priority queue ahead of the others, keeping them all", async () => {
    const name = `${prefix}priority`;
    await channel.assertQueue(name, { durable: true, arguments: { "x-max-priority": 10 } });
    queues.push(name);
    for (let i = 0; i < 5; i++) channel.sendToQueue(name, Buffer.from(`report ${i}`), { messageId: `r${i}`, priority: 1 });
    channel.sendToQueue(name, Buffer.from("fraud cancellation"), { messageId: "urgent", priority: 1 });
    await waitFor(async () => (await readyCount(name)) === 6, { what: "six messages" });
    await pollUntil(() => getQueue(`rabbitmq/${name}`).depth === 6, "the queue's depth");
    expect(actionsFor(getQueue(`rabbitmq/${name}`))).toEqual(["purge", "reprioritise"]);
    await expect(action("reprioritise", name, { messageIds: ["urgent"], priority: 11 })).rejects.toMatchObject({ code: "invalid_input" });
    const done = await actionEnded(await action("reprioritise", name, { messageIds: ["urgent"], priority: 9 }));
    expect(done).toMatchObject({ state: "succeeded", result: { changed: 1, republished: 6 } });
    const ids = await drainIds(name);
    expect(ids[0]).toBe("urgent");
    expect(ids.sort()).toEqual(["r0", "r1", "r2", "r3", "r4", "urgent"]);
  });

  it("keeps every message when a re-prioritise's connection is cut halfway", async () => {
    const name = `${prefix}priority-cut`;
    const total = 6_000;
    await channel.assertQueue(name, { durable: true, arguments: { "x-max-priority": 10 } });
    queues.push(name);
    const confirm = await connection.createConfirmChannel();
    const ids = Array.from({ length: total }, (_, i) => `p${i}`);
    for (const id of ids) confirm.sendToQueue(name, Buffer.from(`body of ${id}`), { messageId: id, priority: 1, persistent: true });
    await confirm.waitForConfirms();
    await confirm.close();
    await pollUntil(() => getQueue(`${CUT}/${name}`).depth === total, "the queue's depth");
    const id = await action("reprioritise", name, { filter: { priority: 1 }, priority: 5 }, CUT);
    // Cut while it is taking the messages: some are in its hands, unacknowledged.
    await waitFor(async () => (await getAction(id)).progress.done >= 1_000, { what: "the re-prioritise under way", intervalMs: 10 });
    await proxy.cut();
    expect(await actionEnded(id)).toMatchObject({ state: "failed", error: expect.stringContaining("closed during the re-prioritise") });
    await waitFor(async () => (await readyCount(name)) >= total, { what: "RabbitMQ to put the messages back" });
    const seen = await drainIds(name);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(seen.length).toBeGreaterThanOrEqual(total);
  });

  it("works in a vhost named with a slash and spaces", async () => {
    const vhost = `${prefix}team a/ops`;
    const encoded = encodeURIComponent(vhost);
    expect((await management("PUT", `/api/vhosts/${encoded}`)).status).toBeLessThan(300);
    await management("PUT", `/api/permissions/${encoded}/guest`, { configure: ".*", write: ".*", read: ".*" });
    const other = await amqp.connect(`amqp://guest:guest@127.0.0.1:5672/${encoded}`);
    try {
      const ch = await other.createChannel();
      await ch.assertExchange("dlx", "direct");
      await ch.assertQueue("dead");
      await ch.bindQueue("dead", "dlx", "d");
      await ch.assertQueue("work", { arguments: { "x-dead-letter-exchange": "dlx", "x-dead-letter-routing-key": "d" } });
      ch.sendToQueue("work", Buffer.from("x"), { messageId: "v1" });
      const message = (await waitFor(() => ch.get("work", { noAck: false }), { what: "the message" })) as GetMessage;
      ch.nack(message, false, false);
      await waitFor(async () => (await ch.checkQueue("dead")).messageCount === 1, { what: "the dead letter" });
      await pollUntil(() => getQueue(`rabbitmq/${vhost}/dead`).sources.length === 1, "the vhost's queues");
      expect(getQueue(`rabbitmq/${vhost}/work`)).toMatchObject({ name: `${vhost}/work`, dlq: { id: `rabbitmq/${vhost}/dead` }, facts: { vhost, queue: "work" } });
      const done = await actionEnded(await action("redrive", `${vhost}/dead`, {}));
      expect(done).toMatchObject({ state: "succeeded", result: { moved: 1 } });
      expect((await ch.checkQueue("work")).messageCount).toBe(1);
    } finally {
      await other.close();
      await management("DELETE", `/api/vhosts/${encoded}`);
    }
  });

  it("redrives a 50 MB message and previews it truncated", async () => {
    const { source, dlq } = await pair("classic");
    const big = Buffer.alloc(50 * 1024 * 1024, "z");
    const confirm = await connection.createConfirmChannel();
    confirm.sendToQueue(source, big, { messageId: "big" });
    await confirm.waitForConfirms();
    await confirm.close();
    const message = (await waitFor(() => channel.get(source, { noAck: false }), { what: "the big message" })) as GetMessage;
    channel.nack(message, false, false);
    await waitFor(async () => (await readyCount(dlq)) === 1, { what: "the big dead letter" });
    await pollUntil(() => getQueue(`rabbitmq/${dlq}`).sources.length === 1, "the DLQ's source");
    const broker = collectorState().brokers.get("rabbitmq")!.config;
    const [preview] = (await browseMessages({ queue: getQueue(`rabbitmq/${dlq}`), broker, limit: 1, confirmSideEffects: true })).items;
    expect(preview.payload).toMatchObject({ bytes: 50 * 1024 * 1024, truncated: true });
    expect(preview.payload!.text.length).toBe(4096);
    expect((await actionEnded(await action("redrive", dlq, {}))).state).toBe("succeeded");
    const back = await channel.get(source, { noAck: true });
    expect(back && back.content.length).toBe(big.length);
  });

  it("says so when the management API refuses the credentials or is not there", async () => {
    await stopCollectors();
    await startCollectors(
      parseConfig(
        {
          brokers: [
            { name: "wrong-password", kind: "rabbitmq", url: "amqp://guest:nope@127.0.0.1:5672" },
            { name: "no-plugin", kind: "rabbitmq", managementUrl: "http://127.0.0.1:1" },
          ],
        },
        "test",
      ),
      { persistHistory: false },
    );
    await pollAllNow();
    const [wrong, missing] = listBrokers();
    expect(wrong.lastError).toBe("RabbitMQ management API refused the credentials for user guest: set brokers.wrong-password.username and password");
    expect(missing.lastError).toMatch(/is not reachable .*: check brokers\.no-plugin\.managementUrl and that the rabbitmq_management plugin is enabled/);
    await stopCollectors();
    proxy = await startTcpProxy(5672);
  const brokers = [
    { name: "rabbitmq", kind: "rabbitmq" },
    { name: CUT, kind: "rabbitmq", url: `amqp://guest:guest@127.0.0.1:${proxy.port}` },
  ];
  await startCollectors(parseConfig({ pollIntervalMs: 60_000, brokers }, "test"), { persistHistory: false });
  });
});
