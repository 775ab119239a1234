// Moving messages between SQS queues by hand: receive a batch, send it to the destination,
// delete from the source only what was sent. A crash between send and delete leaves a
// duplicate (the copy carries the original id), never a loss.
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
  type SendMessageBatchRequestEntry,
} from "@aws-sdk/client-sqs";
import { velocity } from "../../actions/pace";

/** The message attribute that carries a moved message's original id. */
export const ORIGINAL_ID_ATTRIBUTE = "varal-original-message-id";
const SQS_MAX_ATTRIBUTES = 10;

export interface MoveOptions {
  sourceUrl: string;
  destinationUrl: string;
  destinationFifo: boolean;
  limit: number;
  maxPerSecond?: number;
  signal: AbortSignal;
  onProgress(moved: number): Promise<void>;
  /** How long received messages stay hidden while being moved. */
  visibilitySeconds?: number;
}

export function copyEntry(message: Message, index: number, destinationFifo: boolean): SendMessageBatchRequestEntry {
  const attributes: Record<string, MessageAttributeValue> = { ...(message.MessageAttributes ?? {}) };
  if (!attributes[ORIGINAL_ID_ATTRIBUTE] && Object.keys(attributes).length < SQS_MAX_ATTRIBUTES && message.MessageId) {
    attributes[ORIGINAL_ID_ATTRIBUTE] = { DataType: "String", StringValue: message.MessageId };
  }
  const system = message.Attributes ?? {};
  const entry: SendMessageBatchRequestEntry = {
    Id: String(index),
    MessageBody: message.Body ?? "",
    MessageAttributes: Object.keys(attributes).length > 0 ? attributes : undefined,
  };
  if (destinationFifo) {
    entry.MessageGroupId = system.MessageGroupId ?? "varal-redrive";
    // The original's deduplication id (or its id) makes a resend after a crash a no-op in SQS.
    entry.MessageDeduplicationId = system.MessageDeduplicationId ?? message.MessageId;
  }
  return entry;
}

export async function moveMessages(client: SQSClient, options: MoveOptions): Promise<{ moved: number; failed: string[] }> {
  const pace = velocity(options.maxPerSecond, options.signal);
  let moved = 0;
  let emptyReceives = 0;
  const failed: string[] = [];
  while (moved < options.limit && emptyReceives < 2) {
    if (options.signal.aborted) throw options.signal.reason;
    const received = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.sourceUrl,
        MaxNumberOfMessages: Math.min(10, options.limit - moved),
        VisibilityTimeout: options.visibilitySeconds ?? 60,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ["All"],
        MessageSystemAttributeNames: ["All"],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) {
      emptyReceives++;
      continue;
    }
    emptyReceives = 0;
    const sent = await client.send(
      new SendMessageBatchCommand({ QueueUrl: options.destinationUrl, Entries: messages.map((message, index) => copyEntry(message, index, options.destinationFifo)) }),
    );
    const sentIds = new Set((sent.Successful ?? []).map((entry) => entry.Id));
    const done = messages.filter((_, index) => sentIds.has(String(index)));
    const notSent = messages.filter((_, index) => !sentIds.has(String(index)));
    for (const failure of sent.Failed ?? []) failed.push(`${messages[Number(failure.Id)]?.MessageId}: ${failure.Message ?? failure.Code}`);
    if (done.length > 0) {
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.sourceUrl,
          Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
        }),
      );
    }
    if (notSent.length > 0) {
      // Give back at once what could not be sent, rather than after the visibility timeout.
      await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: options.sourceUrl,
          Entries: notSent.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: 0 })),
        }),
      );
      if (done.length === 0) break;
    }
    moved += done.length;
    await options.onProgress(moved);
    await pace(done.length);
  }
  return { moved, failed };
}
