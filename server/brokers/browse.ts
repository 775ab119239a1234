// Reading messages of a queue (dead letters above all) for the browser. Each broker says
// what a read costs: "none" on Redis; the brokers whose reads change state say so before.
import type { BrokerConfig } from "../config/schema";
import type { QueueSnapshot } from "../collect/snapshot";
import { VaralError, brokerFailure } from "../errors";
import type { PayloadPreview } from "./preview";
import { browseKafka } from "./kafka/browse";
import { browseRabbitMq } from "./rabbitmq/browse";
import { browseRedis } from "./redis/browse";
import { browseSqs } from "./sqs/browse";

export type ReadSideEffect = "none" | "receive-count" | "delivery-count" | "requeue-order";

export interface BrowsedMessage {
  id: string;
  payload: PayloadPreview | null;
  headers: Record<string, unknown>;
  /** Why it failed, as the broker or the consumer recorded it. */
  reason: string | null;
  attempts: number | null;
  priority: number | null;
  firstFailureAt: string | null;
  lastFailureAt: string | null;
  enqueuedAt: string | null;
  originalDestination: string | null;
}

export interface BrowsePage {
  sideEffects: ReadSideEffect;
  items: BrowsedMessage[];
  nextCursor: string | null;
}

export interface BrowseRequest {
  queue: QueueSnapshot;
  broker: BrokerConfig;
  limit: number;
  cursor?: string;
  confirmSideEffects: boolean;
  /** Where to start reading a Kafka topic, instead of where its group reads next. */
  from?: { offset?: number; time?: string };
}

export function browsable(queue: QueueSnapshot): boolean {
  return (
    (queue.kind === "redis" && (queue.type === "list" || queue.type === "priority")) ||
    queue.kind === "sqs" ||
    (queue.kind === "rabbitmq" && queue.facts.queueType !== "stream") ||
    (queue.kind === "kafka" && queue.facts.topicMissing !== true)
  );
}

export async function browseMessages(request: BrowseRequest): Promise<BrowsePage> {
  if (!browsable(request.queue)) {
    throw new VaralError("not_supported", `Varal cannot read the messages of ${request.queue.kind} ${request.queue.type} queues.`);
  }
  if (request.from && request.queue.kind !== "kafka") {
    throw new VaralError("invalid_input", "fromOffset and fromTime apply to Kafka topics only: other queues are read from their head.");
  }
  try {
    switch (request.queue.kind) {
      case "kafka":
        return await browseKafka(request);
      case "sqs":
        return await browseSqs(request);
      case "rabbitmq":
        return await browseRabbitMq(request);
      default:
        return await browseRedis(request);
    }
  } catch (error) {
    throw brokerFailure(error, request.broker.name, `Reading ${request.queue.id}`);
  }
}
