// Actions on RabbitMQ queues. Redrive takes messages over AMQP with manual acks, publishes
// each (mandatory, with publisher confirms) to where it died from (x-death) or to a chosen
// queue, and acks the original only after the broker confirmed the copy: at every instant
// each message is in one of the two queues, or in both (a copy with the same message id).
import type { ConfirmChannel, ConsumeMessage, GetMessage } from "amqplib";
import { z } from "zod";
import type { QueueActionHandler, QueueActionTarget, RunContext } from "../../actions/types";
import { purgeParams, requireTypedName, type PurgeParams } from "../../actions/purge";
import { collectorState } from "../../collect/state";
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import { RabbitMqManagement } from "./adapter";
import { sleep } from "../../actions/pace";
import { connectAmqp, copyProperties, parseXDeath } from "./amqp";

const PREFETCH = 2_000;
/** Originals are acked together (multiple=true) once this many in a row are confirmed. */
const ACK_EVERY = 200;
const IDLE_MS = 1_000;

function amqpQueueName(target: QueueActionTarget): { vhost: string; queue: string } {
  return { vhost: String(target.queue.facts.vhost ?? "/"), queue: String(target.queue.facts.queue ?? target.queue.name) };
}

function managementFor(target: QueueActionTarget): RabbitMqManagement {
  return new RabbitMqManagement(target.broker as BrokerConfigOf<"rabbitmq">, { countCalls: () => undefined });
}

const redriveParams = z.object({
  limit: z.number().int().positive().optional(),
  maxPerSecond: z.number().positive().optional(),
  /** A queue of the same vhost to send every message to, instead of where each died from. */
  destination: z.string().min(1).max(255).optional(),
});
type RedriveParams = z.infer<typeof redriveParams>;

interface Route {
  exchange: string;
  routingKey: string;
}

function routeOf(message: ConsumeMessage, destination: string | undefined): Route | null {
  if (destination) return { exchange: "", routingKey: destination };
  const [death] = parseXDeath(message.properties.headers);
  if (!death) return null;
  return { exchange: death.exchange, routingKey: death.routingKeys[0] ?? death.queue };
}

async function redriveRun(context: RunContext<RedriveParams>): Promise<unknown> {
  const { vhost, queue } = amqpQueueName(context);
  const config = context.broker as BrokerConfigOf<"rabbitmq">;
  const connection = await connectAmqp(config, `redrive ${queue}`, vhost);
  const limit = context.params.limit ?? Number.MAX_SAFE_INTEGER;
  let moved = 0;
  let received = 0;
  let inFlight = 0;
  let failure: Error | null = null;
  let lastDelivery = Date.now();
  // Deliveries in order of their tags; each is acked once its copy is confirmed. Acks go
  // out together, up to the last of a confirmed run, to save one frame per message.
  const pending: Array<{ message: ConsumeMessage; confirmed: boolean }> = [];
  let confirmedRun = 0;
  // Once the channel is closed (connection cut, broker stopped) nothing can be acked or
  // nacked: RabbitMQ puts back every delivery not acked, so the originals stay in the DLQ.
  let closed = false;
  const ackConfirmedRun = (force: boolean, channel: ConfirmChannel) => {
    if (closed) return;
    let last: ConsumeMessage | null = null;
    let count = 0;
    while (pending.length > 0 && pending[0].confirmed && (force || confirmedRun >= ACK_EVERY)) {
      last = pending.shift()!.message;
      count++;
    }
    if (last) {
      channel.ack(last, true);
      moved += count;
      confirmedRun = 0;
    }
  };
  const started = Date.now();
  try {
    const channel: ConfirmChannel = await connection.createConfirmChannel();
    channel.on("error", () => undefined);
    // Registered after amqplib's own "close" listener, which fails each unconfirmed publish
    // first: those callbacks must already see the channel as closed, hence prependListener.
    let closing = false;
    channel.prependListener("close", () => {
      closed = true;
      if (!closing) failure ??= new Error(`The AMQP connection closed during the redrive of ${queue} (${moved} moved); what was not moved is still in the queue: run the redrive again`);
    });
    // A paced redrive holds a tenth of a second's worth at most, so pausing its consumer
    // stops it within that; an unpaced one keeps the broker busy with a deep prefetch.
    const maxPerSecond = context.params.maxPerSecond;
    await channel.prefetch(Math.min(limit, maxPerSecond ? Math.max(1, Math.min(PREFETCH, Math.ceil(maxPerSecond / 10))) : PREFETCH));
    const unroutable = new Set<string>();
    channel.on("return", (returned) => unroutable.add(String(returned.properties.headers?.["x-varal-redrive"])));
    // The redrive stops consuming once it took what the DLQ held when it began (the queue
    // is FIFO, so those come first); messages that die later wait for the next redrive.
    const total = Math.min(limit, (await channel.checkQueue(queue)).messageCount);
    await context.progress(0, total);
    let consumerTag: string | null = null;
    /** How far ahead of maxPerSecond the redrive is, in ms (0 or less: on pace, or unpaced). */
    const aheadMs = () => (maxPerSecond ? (received / maxPerSecond) * 1000 - (Date.now() - started) : 0);
    let paused = false;
    const stop = async () => {
      if (consumerTag) {
        const tag = consumerTag;
        consumerTag = null;
        await channel.cancel(tag).catch(() => undefined);
      }
    };
    const onMessage = (message: ConsumeMessage | null) => {
      if (!message) {
        failure ??= new Error(`queue ${queue} was deleted during the redrive`);
        return;
      }
      lastDelivery = Date.now();
      // Past `total` (messages that died meanwhile, delivered before the consumer stopped)
      // they are redriven too; only an operator's limit sends them back.
      if (received >= limit || failure || context.signal.aborted) {
        channel.nack(message, false, true);
        return;
      }
      received++;
      const route = routeOf(message, context.params.destination);
      if (!route) {
        channel.nack(message, false, true);
        failure ??= new VaralError("invalid_input", `Message ${message.properties.messageId ?? `#${received}`} has no x-death header, so where it came from is unknown: give params.destination.`);
        return;
      }
      const tag = `${context.actionId}:${message.fields.deliveryTag}`;
      const entry = { message, confirmed: false };
      pending.push(entry);
      inFlight++;
      channel.publish(route.exchange, route.routingKey, message.content, { ...copyProperties(message, { "x-varal-redrive": tag }), mandatory: true }, (error) => {
        inFlight--;
        if (error || unroutable.has(tag)) {
          // Not taken by the broker, or routed nowhere: this original and the ones after it
          // stay where they were (acked in order only up to the last good one).
          ackConfirmedRun(true, channel);
          const held = pending.splice(0);
          if (!closed) held.forEach((entry) => channel.nack(entry.message, false, true));
          failure ??= new Error(
            error
              ? `RabbitMQ did not confirm a copy: ${error.message}`
              : `exchange "${route.exchange}" routes "${route.routingKey}" to no queue: give params.destination`,
          );
          return;
        }
        entry.confirmed = true;
        confirmedRun++;
        ackConfirmedRun(false, channel);
      });
      if (received >= total) void stop();
      else if (!paused && aheadMs() > 0) {
        // Paced by pausing deliveries: waiting between messages would leave RabbitMQ
        // pushing the prefetch anyway.
        paused = true;
        void stop();
      }
    };
    consumerTag = (await channel.consume(queue, onMessage)).consumerTag;
    while (!failure) {
      if (context.signal.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
      await context.progress(moved, total).catch(() => undefined);
      ackConfirmedRun(true, channel);
      if (received >= total && inFlight === 0) break;
      if (Date.now() - lastDelivery > IDLE_MS && inFlight === 0) {
        if ((await channel.checkQueue(queue)).messageCount === 0) break;
      }
      if (paused) {
        // Cancel ends the pause at once; the loop then winds down as after any stop.
        await sleep(Math.max(0, aheadMs()), context.signal).catch(() => undefined);
        paused = false;
        if (!context.signal.aborted && !failure && received < total) consumerTag = (await channel.consume(queue, onMessage)).consumerTag;
      }
    }
    await stop();
    while (inFlight > 0 && !closed) await new Promise((resolve) => setTimeout(resolve, 20));
    if (!closed) {
      await channel.waitForConfirms().catch(() => undefined);
      ackConfirmedRun(true, channel);
      closing = true;
      await channel.close().catch(() => undefined);
    }
    if (context.signal.aborted) throw context.signal.reason;
    if (failure) throw failure;
    return { moved, destination: context.params.destination ?? "where each message died from (x-death)" };
  } catch (error) {
    // A call on a channel that closed meanwhile fails with amqplib's bare "Channel closed".
    throw closed && failure ? failure : error;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

export const redrive: QueueActionHandler<RedriveParams> = {
  kind: "redrive",
  brokerKind: "rabbitmq",
  params: redriveParams,
  appliesTo: (queue) =>
    queue.facts.queueType !== "stream" &&
    (collectorState().brokers.get(queue.broker)?.snapshots.some((other) => other.dlq?.id === queue.id) ?? false),
  check(target, params) {
    if (target.queue.facts.queueType === "stream") throw new VaralError("invalid_input", "Stream queues keep their messages; there is nothing to redrive from them.");
    if (params.destination) {
      const { vhost } = amqpQueueName(target);
      const name = vhost === "/" ? params.destination : `${vhost}/${params.destination}`;
      if (!collectorState().brokers.get(target.broker.name)?.byName.has(name)) {
        throw new VaralError("not_found", `No queue "${params.destination}" in vhost ${vhost}: params.destination names a queue of the same vhost.`);
      }
    }
  },
  async dryRun(target, params) {
    const depth = target.queue.depth ?? 0;
    return {
      wouldAffect: Math.min(depth, params.limit ?? depth),
      sample: [],
      warnings: [
        params.destination
          ? `Every message goes to queue ${params.destination}.`
          : "Each message goes back to the exchange and routing key it died from (its x-death header); one without x-death stops the redrive.",
        "Each copy keeps the original's properties and headers and gains x-varal-redrive; the original is acked only after RabbitMQ confirmed the copy.",
      ],
    };
  },
  run: redriveRun,
};


export const purge: QueueActionHandler<PurgeParams> = {
  kind: "purge",
  brokerKind: "rabbitmq",
  params: purgeParams,
  appliesTo: (queue) => queue.facts.queueType !== "stream",
  check(target, params, mode) {
    requireTypedName(target, params, mode);
  },
  async dryRun(target) {
    return {
      wouldAffect: target.queue.depth,
      sample: [],
      warnings: ["Purge deletes the ready messages and cannot be undone; messages delivered and not yet acked are kept."],
    };
  },
  async run(context) {
    const { vhost, queue } = amqpQueueName(context);
    const total = context.queue.depth;
    await context.progress(0, total);
    await managementFor(context).request("DELETE", `/api/queues/${encodeURIComponent(vhost)}/${encodeURIComponent(queue)}/contents`, context.signal);
    await context.progress(total ?? 0, total);
    return { purged: total };
  },
};

/** Messages held at once by a re-prioritise: all are taken before any copy is published. */
export const REPRIORITISE_MAX = 10_000;

const reprioritiseParams = z
  .object({
    messageIds: z.array(z.string().min(1)).min(1).max(1000).optional(),
    filter: z.object({ priority: z.number().int().min(0).max(255).optional(), contains: z.string().min(1).max(1000).optional() }).optional(),
    priority: z.number().int().min(0).max(255),
  })
  .refine((params) => (params.messageIds === undefined) !== (params.filter === undefined), "give either messageIds or filter");
type ReprioritiseParams = z.infer<typeof reprioritiseParams>;

function matches(message: ConsumeMessage | GetMessage, params: ReprioritiseParams): boolean {
  if (params.messageIds) return params.messageIds.includes(String(message.properties.messageId));
  const filter = params.filter ?? {};
  if (filter.priority !== undefined && (message.properties.priority ?? 0) !== filter.priority) return false;
  if (filter.contains && !message.content.includes(filter.contains)) return false;
  return true;
}

export const reprioritise: QueueActionHandler<ReprioritiseParams> = {
  kind: "reprioritise",
  brokerKind: "rabbitmq",
  params: reprioritiseParams,
  appliesTo: (queue) => typeof queue.facts.maxPriority === "number",
  check(target, params) {
    const max = target.queue.facts.maxPriority;
    if (typeof max !== "number") {
      throw new VaralError("invalid_input", `${target.queue.id} has no x-max-priority: RabbitMQ ignores priorities on it.`);
    }
    if (params.priority > max) throw new VaralError("invalid_input", `${target.queue.id} has x-max-priority ${max}: priority must be 0 to ${max}.`);
    if ((target.queue.depth ?? 0) > REPRIORITISE_MAX) {
      throw new VaralError("invalid_input", `${target.queue.id} holds ${target.queue.depth} ready messages; re-prioritising takes them all at once, at most ${REPRIORITISE_MAX}.`);
    }
  },
  async dryRun(target) {
    return {
      wouldAffect: null,
      sample: [],
      warnings: [
        `Every ready message (${target.queue.depth ?? "?"}) is taken and published again, the matching ones with the new priority; the originals are acked after RabbitMQ confirms the copies.`,
        "Messages of equal priority may change order; how many match is known once they are read.",
      ],
    };
  },
  async run(context) {
    const { vhost, queue } = amqpQueueName(context);
    const config = context.broker as BrokerConfigOf<"rabbitmq">;
    const connection = await connectAmqp(config, `reprioritise ${queue}`, vhost);
    let closed = false;
    let closing = false;
    connection.on("close", () => {
      closed = !closing;
    });
    try {
      const channel: ConfirmChannel = await connection.createConfirmChannel();
      const total = Math.min(REPRIORITISE_MAX, (await channel.checkQueue(queue)).messageCount);
      await context.progress(0, total);
      const taken: GetMessage[] = [];
      while (taken.length < total) {
        if (context.signal.aborted) break;
        const message = await channel.get(queue, { noAck: false });
        if (!message) break;
        taken.push(message);
        if (taken.length % 500 === 0) await context.progress(taken.length, total).catch(() => undefined);
      }
      if (context.signal.aborted) {
        if (taken.length > 0) channel.nack(taken[taken.length - 1], true, true);
        throw context.signal.reason;
      }
      let changed = 0;
      for (const message of taken) {
        const hit = matches(message, context.params);
        if (hit) changed++;
        channel.sendToQueue(queue, message.content, { ...copyProperties(message), priority: hit ? context.params.priority : message.properties.priority });
      }
      try {
        await channel.waitForConfirms();
      } catch (error) {
        // Copies not confirmed: keep the originals (a copy that did land is a duplicate).
        if (taken.length > 0) channel.nack(taken[taken.length - 1], true, true);
        throw new Error(`RabbitMQ did not confirm the copies: ${(error as Error).message}`);
      }
      if (taken.length > 0) channel.ack(taken[taken.length - 1], true);
      await context.progress(taken.length, total);
      await channel.close();
      return { changed, republished: taken.length };
    } catch (error) {
      // A call on a connection that closed meanwhile fails with amqplib's bare "Channel closed".
      if (closed) {
        throw new Error(
          `The AMQP connection closed during the re-prioritise of ${queue}: RabbitMQ put back every message not yet acknowledged (a copy it had confirmed may appear twice, with the same message id). Run the re-prioritise again.`,
        );
      }
      throw error;
    } finally {
      closing = true;
      await connection.close().catch(() => undefined);
    }
  },
};

export const rabbitmqHandlers = [redrive, purge, reprioritise] as QueueActionHandler<never>[];


