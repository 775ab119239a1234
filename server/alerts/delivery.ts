// The outbox of alert notifications. Every replica sends: a delivery is claimed with a
// conditional update (a lease), so none is sent twice at once. A failure is retried with
// exponential backoff and jitter; after the last attempt the delivery is dead, listed,
// and can be redelivered. Pending deliveries survive a restart: they are rows.
import crypto from "node:crypto";
import { backoffMs } from "../backoff";
import { db, fromJsonColumn, toJsonColumn } from "../db/client";
import { VaralError, describeError } from "../errors";
import { noSuchChannel } from "./rules";
import { alertmanagerPayload, genericPayload, slackPayload, type AlertEvent } from "./payloads";
import { signatureHeaders } from "./sign";

export interface DeliverySettings {
  retryBaseMs: number;
  retryMaxMs: number;
  maxAttempts: number;
  timeoutMs: number;
}

const CLAIM_LEASE_MS = 60_000;
const BATCH = 50;

export type DeliveryState = "pending" | "delivered" | "dead";

function body(kind: string, event: AlertEvent): unknown {
  if (kind === "alertmanager") return alertmanagerPayload(event);
  if (kind === "slack") return slackPayload(event);
  return genericPayload(event);
}

/** Sends one request; resolves on a 2xx, throws a sentence that says what went wrong. */
export async function send(channel: { kind: string; url: string; secret: string | null }, deliveryId: string, event: AlertEvent, timeoutMs: number): Promise<void> {
  const text = JSON.stringify(body(channel.kind, event));
  const headers: Record<string, string> = { "content-type": "application/json", "user-agent": "varal-alerts" };
  if (channel.secret) Object.assign(headers, signatureHeaders(channel.secret, deliveryId, text));
  let response: Response;
  try {
    // Redirects are not followed: an alert goes where an admin pointed it, nowhere else.
    response = await fetch(channel.url, { method: "POST", headers, body: text, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const cause = (error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : describeError((error as { cause?: unknown }).cause ?? error);
    throw new Error(`${channel.url}: ${cause}`);
  }
  await response.arrayBuffer().catch(() => undefined);
  if (response.status >= 300 && response.status < 400) {
    throw new Error(`${channel.url} answered a redirect (${response.status}) to ${response.headers.get("location") ?? "?"}: Varal does not follow redirects; set the channel's URL to the final address`);
  }
  if (!response.ok) throw new Error(`${channel.url} answered ${response.status}`);
}

export class DeliveryWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly settings: DeliverySettings) {}

  start(intervalMs = 1_000): void {
    this.timer = setInterval(() => void this.runOnce(), intervalMs);
    this.timer.unref?.();
    void this.runOnce();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
  }

  /** Sends what is due; returns how many were attempted. */
  runOnce(now = Date.now()): Promise<number> {
    this.running ??= this.sendDue(now).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async sendDue(now: number): Promise<number> {
    const due = await db().alertDelivery.findMany({ where: { state: "pending", nextAttemptAt: { lte: new Date(now) } }, orderBy: { nextAttemptAt: "asc" }, take: BATCH });
    let attempted = 0;
    await Promise.all(
      due.map(async (delivery) => {
        const claimed = await db().alertDelivery.updateMany({
          where: { id: delivery.id, state: "pending", nextAttemptAt: delivery.nextAttemptAt },
          data: { nextAttemptAt: new Date(now + CLAIM_LEASE_MS) },
        });
        if (claimed.count === 0) return;
        attempted++;
        const channel = await db().alertChannel.findUnique({ where: { id: delivery.channelId } });
        const attempts = delivery.attempts + 1;
        try {
          if (!channel) throw new Error(`channel ${delivery.channelId} was deleted`);
          await send(channel, delivery.id, fromJsonColumn<AlertEvent>(delivery.payload)!, this.settings.timeoutMs);
          await db().alertDelivery.update({ where: { id: delivery.id }, data: { state: "delivered", attempts, deliveredAt: new Date(), lastError: null } });
        } catch (error) {
          const dead = attempts >= this.settings.maxAttempts || !channel;
          await db().alertDelivery.update({
            where: { id: delivery.id },
            data: {
              attempts,
              lastError: describeError(error).slice(0, 1000),
              state: dead ? "dead" : "pending",
              nextAttemptAt: new Date(Date.now() + (dead ? 0 : backoffMs(attempts, this.settings.retryBaseMs, this.settings.retryMaxMs))),
            },
          });
        }
      }),
    );
    return attempted;
  }
}

export async function listDeliveries(state: DeliveryState | undefined, limit: number) {
  const rows = await db().alertDelivery.findMany({ where: state ? { state } : undefined, orderBy: { createdAt: "desc" }, take: limit });
  return rows.map((row) => ({
    id: row.id,
    channelId: row.channelId,
    ruleId: row.ruleId,
    event: row.event,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.state === "pending" ? row.nextAttemptAt.toISOString() : null,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
    summary: fromJsonColumn<AlertEvent>(row.payload)?.summary ?? null,
  }));
}

export async function redeliver(id: string): Promise<void> {
  const { count } = await db().alertDelivery.updateMany({ where: { id, state: "dead" }, data: { state: "pending", attempts: 0, nextAttemptAt: new Date(), lastError: null } });
  if (count === 0) {
    const exists = await db().alertDelivery.findUnique({ where: { id } });
    if (!exists) throw new VaralError("not_found", `No delivery with id ${id}: see GET /api/alerts/deliveries.`);
    throw new VaralError("conflict", `Delivery ${id} is ${exists.state}: only dead deliveries are redelivered.`);
  }
}

/** Queues a test notification on a channel, sent by the worker like any other. */
export async function queueTest(channelId: string, ruleName = "Varal test"): Promise<string> {
  const channel = await db().alertChannel.findUnique({ where: { id: channelId } });
  if (!channel) throw noSuchChannel([channelId]);
  const event: AlertEvent = {
    transition: { ruleId: "test", seriesKey: "test", labels: {}, from: "pending", to: "firing", value: null, at: Date.now() },
    ruleName,
    metric: "test",
    severity: "info",
    summary: `A test notification from Varal to ${channel.name}`,
    url: process.env.VARAL_PUBLIC_URL ?? null,
  };
  const row = await db().alertDelivery.create({ data: { id: crypto.randomUUID(), channelId, event: "test", payload: toJsonColumn(event), state: "pending" } });
  return row.id;
}
