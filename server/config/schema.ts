// The shape of varal.config.yaml. Connection fields differ per broker kind; secrets are
// ${ENV_NAME} references resolved at load time and never sent to the browser.
import { z } from "zod";

const name = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$/, "letters, digits, '.', '_' and '-', starting with a letter or digit");
const duration = z.number().int().positive();

const common = {
  name,
  pollIntervalMs: duration.min(500).optional(),
  pollTimeoutMs: duration.min(100).optional(),
};

export const redisBrokerSchema = z.object({
  ...common,
  kind: z.literal("redis"),
  url: z.string().regex(/^rediss?:\/\//, "a redis:// or rediss:// URL").default("redis://127.0.0.1:6379"),
  /** SCAN pattern limiting which keys are looked at. */
  keyPattern: z.string().default("*"),
});

export const rabbitmqBrokerSchema = z.object({
  ...common,
  kind: z.literal("rabbitmq"),
  url: z.string().regex(/^amqps?:\/\//, "an amqp:// or amqps:// URL").default("amqp://guest:guest@127.0.0.1:5672"),
  managementUrl: z.string().url().default("http://127.0.0.1:15672"),
  username: z.string().optional(),
  password: z.string().optional(),
});

export const kafkaBrokerSchema = z.object({
  ...common,
  kind: z.literal("kafka"),
  brokers: z.array(z.string().regex(/^[^\s:]+:\d+$/, "host:port")).min(1).default(["127.0.0.1:9092"]),
  clientId: z.string().default("varal"),
  /** Varal's own consumer group on DLQ topics: its commits mark what was redriven. */
  redriveGroup: z.string().min(1).default("varal-redrive"),
  /** A topic named `<topic><suffix>` is the dead-letter topic of `<topic>`. */
  dlqSuffixes: z.array(z.string().min(1)).default([".DLQ", "-dlt"]),
  /** Polls in the sliding window that each partition's status is judged over (Burrow's rules). */
  statusWindow: z.number().int().min(2).max(100).default(10),
  /** Records read per poll to date the committed offsets (lag in seconds); the rest interpolate. */
  timeLagReadsPerPoll: z.number().int().min(0).max(10_000).default(500),
});

export const sqsBrokerSchema = z.object({
  ...common,
  kind: z.literal("sqs"),
  region: z.string().default("us-east-1"),
  endpoint: z.string().url().optional(),
  accessKeyId: z.string().optional(),
  secretAccessKey: z.string().optional(),
  queueNamePrefix: z.string().optional(),
});

export const brokerSchema = z.discriminatedUnion("kind", [
  redisBrokerSchema,
  rabbitmqBrokerSchema,
  kafkaBrokerSchema,
  sqsBrokerSchema,
]);

export const configSchema = z
  .object({
    pollIntervalMs: duration.min(500).default(5_000),
    pollTimeoutMs: duration.min(100).default(4_000),
    /** A queue whose oldest message is older than this is in warning. */
    lagWarningSeconds: z.number().positive().default(300),
    alerts: z
      .object({
        evaluationIntervalMs: duration.min(200).default(5_000),
        /** Webhook retries: exponential backoff with jitter between these, then "dead". */
        retryBaseMs: duration.min(10).default(2_000),
        retryMaxMs: duration.min(10).default(300_000),
        maxAttempts: z.number().int().min(1).max(50).default(8),
        timeoutMs: duration.min(100).default(10_000),
      })
      .default({ evaluationIntervalMs: 5_000, retryBaseMs: 2_000, retryMaxMs: 300_000, maxAttempts: 8, timeoutMs: 10_000 }),
    brokers: z.array(brokerSchema),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    config.brokers.forEach((broker, index) => {
      if (seen.has(broker.name)) {
        ctx.addIssue({ code: "custom", path: ["brokers", index, "name"], message: `duplicate broker name "${broker.name}"` });
      }
      seen.add(broker.name);
    });
  });

export type VaralConfig = z.infer<typeof configSchema>;
export type BrokerConfig = z.infer<typeof brokerSchema>;
export type BrokerKind = BrokerConfig["kind"];
export type BrokerConfigOf<K extends BrokerKind> = Extract<BrokerConfig, { kind: K }>;
export const BROKER_KINDS = ["redis", "rabbitmq", "kafka", "sqs"] as const satisfies readonly BrokerKind[];
