// Pure: RabbitMQ management API responses to queue observations.
import type { QueueObservation } from "../types";
import type { DeadLetterSettings } from "./topology";

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
  "policy",
  "effective_policy_definition",
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
  policy?: string | null;
  effective_policy_definition?: Record<string, unknown> | null;
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

export interface QueueContext {
  /** Where this queue's dead letters go, found through the topology. */
  deadLetter: (DeadLetterSettings & { queues: string[] }) | null;
  consumerPrefetch: number[];
}

export function queueObservation(queue: ManagementQueue, nowMs: number, context: QueueContext): QueueObservation {
  const deadLetter = context.deadLetter;
  const warnings: string[] = [];
  if (context.consumerPrefetch.includes(0)) {
    warnings.push("A consumer has unlimited prefetch: it takes the whole backlog and other consumers get nothing. Set basic.qos.");
  }
  if (deadLetter && deadLetter.queues.length === 0) {
    warnings.push(`Dead letters go to exchange "${deadLetter.exchange}", which routes them to no queue: they are dropped.`);
  }
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
    dlqName: deadLetter?.queues[0] ?? null,
    facts: {
      vhost: queue.vhost,
      queue: queue.name,
      queueType: queue.type ?? "classic",
      state: queue.state ?? null,
      consumerCapacity: numberOrNull(queue.consumer_capacity),
      memoryBytes: numberOrNull(queue.memory),
      policy: queue.policy ?? null,
      maxPriority: numberOrNull(queue.arguments?.["x-max-priority"]),
      deadLetterExchange: deadLetter?.exchange ?? null,
      deadLetterRoutingKey: deadLetter?.routingKey ?? null,
      deadLetterFrom: deadLetter?.from ?? null,
      deadLetterQueues: deadLetter?.queues ?? [],
      deliveryLimit: deadLetter?.deliveryLimit ?? numberOrNull(queue.arguments?.["x-delivery-limit"] ?? queue.effective_policy_definition?.["delivery-limit"]),
      consumerPrefetch: context.consumerPrefetch,
      warnings,
    },
  };
}
