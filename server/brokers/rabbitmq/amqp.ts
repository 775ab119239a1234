// AMQP connections for actions and reads. Each has a name that shows in RabbitMQ's
// management UI, so an operator can see (and close) what Varal is doing.
import amqp, { type ChannelModel, type ConsumeMessage, type GetMessage, type Options } from "amqplib";
import type { BrokerConfigOf } from "../../config/schema";

/** Connects to the broker's URL, in `vhost` when given (else the URL's own). */
export async function connectAmqp(config: BrokerConfigOf<"rabbitmq">, purpose: string, vhost?: string): Promise<ChannelModel> {
  const url = new URL(config.url);
  if (vhost !== undefined) url.pathname = `/${encodeURIComponent(vhost)}`;
  if (config.username) url.username = encodeURIComponent(config.username);
  if (config.password) url.password = encodeURIComponent(config.password);
  try {
    const connection = await amqp.connect(url.toString(), { clientProperties: { connection_name: `varal ${purpose}` }, timeout: 10_000 });
    // A socket error is also reported through "close" (and each channel's "close"), where
    // the work using the connection notices it; unheard, "error" would end the process.
    connection.on("error", () => undefined);
    return connection;
  } catch (error) {
    const message = (error as Error).message;
    if (/ACCESS_REFUSED|403/.test(message)) {
      throw new Error(`RabbitMQ refused the credentials for user ${decodeURIComponent(url.username) || "guest"}: set brokers.${config.name}.url (or username and password)`);
    }
    throw new Error(`RabbitMQ at ${url.host} is not reachable over AMQP (${message}): check brokers.${config.name}.url`);
  }
}

/** One entry of a message's x-death history, newest first as RabbitMQ keeps it. */
export interface DeathRecord {
  queue: string;
  reason: string;
  count: number;
  exchange: string;
  routingKeys: string[];
  time: string | null;
}

export function parseXDeath(headers: Record<string, unknown> | undefined): DeathRecord[] {
  const raw = headers?.["x-death"];
  if (!Array.isArray(raw)) return [];
  return raw.map((entry: Record<string, unknown>) => {
    const time = entry.time as number | { value?: number } | undefined;
    const seconds = typeof time === "number" ? time : typeof time?.value === "number" ? time.value : null;
    return {
      queue: String(entry.queue ?? ""),
      reason: String(entry.reason ?? ""),
      count: Number(entry.count ?? 0),
      exchange: String(entry.exchange ?? ""),
      routingKeys: Array.isArray(entry["routing-keys"]) ? (entry["routing-keys"] as unknown[]).map(String) : [],
      time: seconds === null ? null : new Date(seconds * 1000).toISOString(),
    };
  });
}

/** The properties to publish a copy with: everything the original carried. */
export function copyProperties(message: ConsumeMessage | GetMessage, extraHeaders: Record<string, unknown> = {}): Options.Publish {
  const p = message.properties;
  return {
    contentType: p.contentType,
    contentEncoding: p.contentEncoding,
    headers: { ...(p.headers ?? {}), ...extraHeaders },
    deliveryMode: p.deliveryMode,
    priority: p.priority,
    correlationId: p.correlationId,
    replyTo: p.replyTo,
    expiration: p.expiration,
    messageId: p.messageId,
    timestamp: p.timestamp,
    type: p.type,
    userId: p.userId,
    appId: p.appId,
  };
}
