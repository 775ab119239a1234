// Reading RabbitMQ messages. AMQP has no read without taking, so every read changes
// something, and the caller must confirm:
//  - classic queues: get, then nack with requeue; the messages come back flagged
//    "redelivered" and possibly out of order;
//  - quorum queues: a requeue would raise each message's delivery count (and could
//    dead-letter it at its delivery limit), so each is copied back with a publisher
//    confirm and the original acked: the delivery count stays, the order does not.
import type { ConfirmChannel, GetMessage } from "amqplib";
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import type { BrowsedMessage, BrowsePage, BrowseRequest } from "../browse";
import { previewPayload } from "../preview";
import { connectAmqp, copyProperties, parseXDeath } from "./amqp";

function toBrowsed(message: GetMessage, index: number): BrowsedMessage {
  const headers = { ...(message.properties.headers ?? {}) };
  const deaths = parseXDeath(headers);
  delete headers["x-death"];
  const times = deaths.map((death) => death.time).filter((time): time is string => time !== null).sort();
  const latest = deaths[0];
  return {
    id: message.properties.messageId ?? `#${index}`,
    payload: previewPayload(message.content),
    headers: {
      ...headers,
      ...(message.properties.contentType ? { "content-type": message.properties.contentType } : {}),
      ...(deaths.length > 0 ? { "x-death": deaths } : {}),
    },
    reason: latest ? `${latest.reason} in ${latest.queue}${latest.count > 1 ? ` (${latest.count} times)` : ""}` : null,
    attempts: deaths.length > 0 ? deaths.reduce((sum, death) => sum + death.count, 0) : ((headers["x-delivery-count"] as number | undefined) ?? null),
    priority: message.properties.priority ?? null,
    firstFailureAt: times[0] ?? null,
    lastFailureAt: times.at(-1) ?? null,
    enqueuedAt: message.properties.timestamp ? new Date(Number(message.properties.timestamp) * 1000).toISOString() : null,
    originalDestination: latest ? (latest.exchange ? `${latest.exchange} / ${latest.routingKeys.join(", ")}` : latest.queue) : null,
  };
}

export async function browseRabbitMq({ queue, broker, limit, confirmSideEffects }: BrowseRequest): Promise<BrowsePage> {
  const quorum = queue.facts.queueType === "quorum";
  if (!confirmSideEffects) {
    throw new VaralError(
      "conflict",
      quorum
        ? `Reading ${queue.id} takes its messages and puts copies back at the end of the queue (a requeue would raise their delivery count): their order changes. Repeat with confirmSideEffects=true to read anyway.`
        : `Reading ${queue.id} takes its messages and requeues them: they come back marked redelivered, possibly in another order. Repeat with confirmSideEffects=true to read anyway.`,
      { sideEffects: "requeue-order" },
    );
  }
  const config = broker as BrokerConfigOf<"rabbitmq">;
  const vhost = String(queue.facts.vhost ?? "/");
  const name = String(queue.facts.queue ?? queue.name);
  const connection = await connectAmqp(config, `read ${name}`, vhost);
  try {
    const channel: ConfirmChannel = await connection.createConfirmChannel();
    const taken: GetMessage[] = [];
    while (taken.length < Math.min(limit, 100)) {
      const message = await channel.get(name, { noAck: false });
      if (!message) break;
      taken.push(message);
    }
    if (taken.length > 0) {
      if (quorum) {
        for (const message of taken) channel.sendToQueue(name, message.content, copyProperties(message));
        await channel.waitForConfirms();
        channel.ack(taken[taken.length - 1], true);
      } else {
        channel.nack(taken[taken.length - 1], true, true);
      }
    }
    await channel.close();
    return { sideEffects: "requeue-order", items: taken.map(toBrowsed), nextCursor: null };
  } finally {
    await connection.close().catch(() => undefined);
  }
}
