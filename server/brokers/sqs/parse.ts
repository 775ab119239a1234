// Pure: SQS queue attributes to queue observations.
import type { QueueObservation } from "../types";

export function queueNameFromUrl(url: string): string {
  return decodeURIComponent(url.replace(/\/+$/, "").split("/").pop() ?? url);
}

function count(value: string | undefined): number | null {
  if (value === undefined) return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
}

/** The DLQ named by a RedrivePolicy, by the last part of its ARN. */
export function redriveTarget(policy: string | undefined): { dlqName: string; maxReceiveCount: number | null } | null {
  if (!policy) return null;
  try {
    const parsed = JSON.parse(policy) as { deadLetterTargetArn?: string; maxReceiveCount?: number | string };
    if (!parsed.deadLetterTargetArn) return null;
    return { dlqName: parsed.deadLetterTargetArn.split(":").pop() ?? "", maxReceiveCount: count(String(parsed.maxReceiveCount ?? "")) };
  } catch {
    return null;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function queueObservation(url: string, attributes: Record<string, string>): QueueObservation {
  const depth = count(attributes.ApproximateNumberOfMessages);
  const redrive = redriveTarget(attributes.RedrivePolicy);
  return {
    name: queueNameFromUrl(url),
    type: "queue",
    depth,
    inflight: count(attributes.ApproximateNumberOfMessagesNotVisible),
    delayed: count(attributes.ApproximateNumberOfMessagesDelayed),
    // SQS does not say who is polling a queue.
    consumers: null,
    lagMessages: depth,
    lagSeconds: depth === 0 ? 0 : null,
    dlqName: redrive?.dlqName ?? null,
    facts: {
      url,
      arn: attributes.QueueArn ?? null,
      // SQS's counts are approximate and can take about a minute to settle.
      approximate: true,
      fifo: attributes.FifoQueue === "true",
      contentBasedDeduplication: attributes.ContentBasedDeduplication === "true",
      visibilityTimeoutSeconds: count(attributes.VisibilityTimeout),
      retentionSeconds: count(attributes.MessageRetentionPeriod),
      delaySeconds: count(attributes.DelaySeconds),
      maxReceiveCount: redrive?.maxReceiveCount ?? null,
      redrivePolicy: attributes.RedrivePolicy ? safeJson(attributes.RedrivePolicy) : null,
      redriveAllowPolicy: attributes.RedriveAllowPolicy ? safeJson(attributes.RedriveAllowPolicy) : null,
    },
  };
}
