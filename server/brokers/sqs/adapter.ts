// SQS: lists queues page by page and reads their attributes with bounded concurrency.
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { BrokerConfigOf } from "../../config/schema";
import { mapBounded, type AdapterContext, type BrokerAdapter, type QueueObservation } from "../types";
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

  async poll(signal: AbortSignal): Promise<QueueObservation[]> {
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
