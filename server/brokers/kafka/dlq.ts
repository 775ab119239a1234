// Which topics are dead-letter topics, and of what: by a naming rule (`<topic>.DLQ`,
// `<topic>-dlt`, configurable) or by the header that the usual dead-letter producers put
// on each record (Spring Kafka, Kafka Connect, and Varal's own convention).

/** Headers naming the topic a dead letter came from, in order of preference. */
export const ORIGINAL_TOPIC_HEADERS = ["x-original-topic", "kafka_dlt-original-topic", "__connect.errors.topic"] as const;
/** Headers carrying why a record failed. */
export const FAILURE_HEADERS = ["x-exception-message", "kafka_dlt-exception-message", "__connect.errors.exception.message", "x-error"] as const;

export interface DeadLetterTopic {
  topic: string;
  /** The topic its records came from, when known. */
  originalTopic: string | null;
  detectedBy: "name" | "header";
}

/** The original topic of a DLQ topic by name, or null when the name follows no rule. */
export function originalTopicByName(topic: string, suffixes: readonly string[]): string | null {
  for (const suffix of suffixes) {
    if (topic.length > suffix.length && topic.endsWith(suffix)) return topic.slice(0, -suffix.length);
  }
  return null;
}

function headerText(value: Buffer | Buffer[] | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const first = Array.isArray(value) ? value[0] : value;
  if (!first || first.length === 0) return null;
  const text = first.toString("utf8");
  // A header that is not text (or not valid UTF-8) names no topic.
  return Buffer.from(text, "utf8").equals(first) ? text : null;
}

/** The original topic named by a record's headers, if any. */
export function originalTopicFromHeaders(headers: Record<string, Buffer | Buffer[] | null>): string | null {
  for (const name of ORIGINAL_TOPIC_HEADERS) {
    const text = headerText(headers[name]);
    if (text) return text;
  }
  return null;
}

export function failureReason(headers: Record<string, Buffer | Buffer[] | null>): string | null {
  for (const name of FAILURE_HEADERS) {
    const text = headerText(headers[name]);
    if (text) return text;
  }
  return null;
}
