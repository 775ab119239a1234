// Reading SQS messages: receive with a short visibility timeout, then make them visible
// again at once. A receive raises each message's receive count; on a queue with a redrive
// policy that can push messages into its dead-letter queue, so the caller must confirm.
import { ChangeMessageVisibilityBatchCommand, ReceiveMessageCommand, type Message } from "@aws-sdk/client-sqs";
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import type { BrowsedMessage, BrowsePage, BrowseRequest } from "../browse";
import { previewPayload } from "../preview";
import { createSqsClient, describeSqsError } from "./adapter";

const PEEK_VISIBILITY_SECONDS = 10;

function toBrowsed(message: Message): BrowsedMessage {
  const system = message.Attributes ?? {};
  const attributes = Object.fromEntries(
    Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [name, value.StringValue ?? (value.BinaryValue ? `(binary, ${value.BinaryValue.length} bytes)` : null)]),
  );
  const firstReceive = system.ApproximateFirstReceiveTimestamp ? new Date(Number(system.ApproximateFirstReceiveTimestamp)).toISOString() : null;
  return {
    id: message.MessageId ?? "",
    payload: previewPayload(message.Body ?? ""),
    headers: { ...attributes, ...(system.MessageGroupId ? { MessageGroupId: system.MessageGroupId } : {}) },
    reason: null,
    attempts: system.ApproximateReceiveCount ? Number(system.ApproximateReceiveCount) : null,
    priority: null,
    firstFailureAt: firstReceive,
    lastFailureAt: null,
    enqueuedAt: system.SentTimestamp ? new Date(Number(system.SentTimestamp)).toISOString() : null,
    originalDestination: system.DeadLetterQueueSourceArn?.split(":").pop() ?? null,
  };
}

export async function browseSqs({ queue, broker, limit, confirmSideEffects }: BrowseRequest): Promise<BrowsePage> {
  const hasRedrivePolicy = queue.facts.redrivePolicy !== null && queue.facts.redrivePolicy !== undefined;
  const sideEffects = hasRedrivePolicy ? "receive-count" : "none";
  if (hasRedrivePolicy && !confirmSideEffects) {
    throw new VaralError(
      "conflict",
      `Reading ${queue.id} receives its messages, which raises their receive count; one received more than ${queue.facts.maxReceiveCount ?? "maxReceiveCount"} times moves to its dead-letter queue. Repeat with confirmSideEffects=true to read anyway.`,
      { sideEffects },
    );
  }
  const client = createSqsClient(broker as BrokerConfigOf<"sqs">, 10_000);
  const received: Message[] = [];
  try {
    // SQS cannot page: up to `limit` messages, ten per receive, hidden briefly so that
    // each receive returns new ones, then all made visible again.
    for (let round = 0; round < Math.ceil(Math.min(limit, 50) / 10); round++) {
      const page = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: String(queue.facts.url),
          MaxNumberOfMessages: Math.min(10, limit - received.length),
          VisibilityTimeout: PEEK_VISIBILITY_SECONDS,
          WaitTimeSeconds: 0,
          MessageAttributeNames: ["All"],
          MessageSystemAttributeNames: ["All"],
        }),
      );
      if (!page.Messages?.length) break;
      received.push(...page.Messages);
      if (received.length >= limit) break;
    }
    return { sideEffects, items: received.map(toBrowsed), nextCursor: null };
  } catch (error) {
    throw new VaralError("unavailable", `SQS ${queue.name}: ${describeSqsError(error)}`);
  } finally {
    for (let i = 0; i < received.length; i += 10) {
      const batch = received.slice(i, i + 10);
      await client
        .send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: String(queue.facts.url),
            Entries: batch.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: 0 })),
          }),
        )
        .catch(() => undefined);
    }
    client.destroy();
  }
}
