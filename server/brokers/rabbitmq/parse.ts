// Pure: RabbitMQ management API responses to queue observations.
import type { QueueObservation } from "../types";

/** The columns asked of /api/queues: a fraction of the full objects, which carry large stats. */
export const QUEUE_COLUMNS = [
  "name",
  "vhost",
  "type",
  "state",
  "messages_ready",
  "messages_unacknowledged",
  "consumers",
  "consumer_capacity",
  "memory",
  "arguments",
  "head_message_timestamp",
  "message_stats.publish_details.rate",
  "message_stats.deliver_get_details.rate",
  "message_stats.ack_details.rate",
] as const;

export interface ManagementQueue {
  name: string;
  vhost: string;
  type?: string;
  state?: string;
  messages_ready?: number;
  messages_unacknowledged?: number;
  consumers?: number;
  consumer_capacity?: number;
  memory?: number;
  arguments?: Record<string, unknown>;
  head_message_timestamp?: number | null;
  message_stats?: {
    publish_details?: { rate?: number };
    deliver_get_details?: { rate?: number };
    ack_details?: { rate?: number };
  };
}

export interface ManagementPage<T> {
  items: T[];
  page: number;
  page_count: number;
  total_count?: number;
  filtered_count?: number;
}

/** Varal's name for a RabbitMQ queue: the queue name, prefixed by its vhost unless that is "/". */
export function queueName(vhost: string, name: string): string {
  return vhost === "/" ? name : `${vhost}/${name}`;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

export function queueObservation(queue: ManagementQueue, nowMs: number): QueueObservation {
  const args = queue.arguments ?? {};
  const dlx = typeof args["x-dead-letter-exchange"] === "string" ? (args["x-dead-letter-exchange"] as string) : null;
  const dlRoutingKey = typeof args["x-dead-letter-routing-key"] === "string" ? (args["x-dead-letter-routing-key"] as string) : null;
  // Through the default exchange the routing key is the DLQ's name; other exchanges are
  // followed through their bindings by the topology reader.
  const dlqName = dlx === "" && dlRoutingKey ? queueName(queue.vhost, dlRoutingKey) : null;
  const ready = numberOrNull(queue.messages_ready);
  const headTimestamp = numberOrNull(queue.head_message_timestamp);
  return {
    name: queueName(queue.vhost, queue.name),
    type: "queue",
    depth: ready,
    inflight: numberOrNull(queue.messages_unacknowledged),
    delayed: null,
    consumers: numberOrNull(queue.consumers),
    rateIn: numberOrNull(queue.message_stats?.publish_details?.rate) ?? (queue.message_stats ? 0 : null),
    rateOut: numberOrNull(queue.message_stats?.deliver_get_details?.rate) ?? (queue.message_stats ? 0 : null),
    lagMessages: ready,
    // head_message_timestamp is the publisher's timestamp property, in seconds, when set.
    lagSeconds: headTimestamp !== null && ready ? Math.max(0, nowMs / 1000 - headTimestamp) : ready === 0 ? 0 : null,
    dlqName,
    facts: {
      vhost: queue.vhost,
      queueType: queue.type ?? "classic",
      state: queue.state ?? null,
      consumerCapacity: numberOrNull(queue.consumer_capacity),
      memoryBytes: numberOrNull(queue.memory),
      deadLetterExchange: dlx,
      deadLetterRoutingKey: dlRoutingKey,
    },
  };
}
