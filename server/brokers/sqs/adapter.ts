// SQS: lists queues page by page and reads their attributes with bounded concurrency.
import { setMaxListeners } from "node:events";
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { BrokerConfigOf } from "../../config/schema";
import { mapBounded, type AdapterContext, type BrokerAdapter, type PollResult, type QueueObservation } from "../types";
import { queueObservation } from "./parse";

const ATTRIBUTE_CONCURRENCY = 16;

export function createSqsClient(config: BrokerConfigOf<"sqs">, timeoutMs: number): SQSClient {
  return new SQSClient({
    region: config.region,
    endpoint: config.endpoint,
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeoutMs, connectionTimeout: Math.min(timeoutMs, 3_000) },
    ...(config.accessKeyId && config.secretAccessKey
      ? { credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } }
      : {}),
  });
}

/** What went wrong, and what to set, in an operator's words. */
export function describeSqsError(error: unknown): string {
  const name = (error as { name?: string }).name ?? "";
  const message = (error as Error).message ?? String(error);
  if (/AccessDenied|InvalidClientTokenId|SignatureDoesNotMatch|UnrecognizedClient/.test(name + message)) {
    return `access denied (${message}): check the credentials (accessKeyId/secretAccessKey or the AWS credential chain) and their IAM permissions`;
  }
  if (/QueueDoesNotExist|NonExistentQueue/.test(name + message)) {
    return `a queue no longer exists (deleted while Varal was using it?): ${message}`;
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT/.test(message)) {
    return `not reachable (${message}): check the broker's endpoint and region`;
  }
  if (/CredentialsProviderError|Could not load credentials/.test(name + message)) {
    return `no credentials found: set accessKeyId and secretAccessKey, or configure the AWS credential chain`;
  }
  return message;
}

export class SqsAdapter implements BrokerAdapter {
  readonly kind = "sqs" as const;
  private readonly client: SQSClient;

  constructor(
    private readonly config: BrokerConfigOf<"sqs">,
    private readonly context: AdapterContext,
    timeoutMs: number,
  ) {
    this.client = createSqsClient(config, timeoutMs);
  }

  async poll(signal: AbortSignal): Promise<PollResult> {
    try {
      return { queues: await this.read(signal) };
    } catch (error) {
      if (signal.aborted) throw error;
      throw new Error(`SQS ${this.where()}: ${describeSqsError(error)}`);
    }
  }

  private where(): string {
    return this.config.endpoint ? `at ${this.config.endpoint}` : `in ${this.config.region}`;
  }

  private async read(signal: AbortSignal): Promise<QueueObservation[]> {
    // Every call in flight listens on the poll's signal.
    setMaxListeners(ATTRIBUTE_CONCURRENCY + 8, signal);
    const urls: string[] = [];
    let nextToken: string | undefined;
    do {
      this.context.countCalls();
      const page = await this.client.send(
        new ListQueuesCommand({ QueueNamePrefix: this.config.queueNamePrefix, MaxResults: 1000, NextToken: nextToken }),
        { abortSignal: signal },
      );
      urls.push(...(page.QueueUrls ?? []));
      nextToken = page.NextToken;
    } while (nextToken);
    return mapBounded(urls, ATTRIBUTE_CONCURRENCY, async (url) => {
      this.context.countCalls();
      const result = await this.client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }), {
        abortSignal: signal,
      });
      return queueObservation(url, result.Attributes ?? {});
    });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
