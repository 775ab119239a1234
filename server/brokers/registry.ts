// Broker kind -> adapter. A new broker is one folder and one line here.
import type { BrokerConfig } from "../config/schema";
import { KafkaAdapter } from "./kafka/adapter";
import { RabbitMqAdapter } from "./rabbitmq/adapter";
import { RedisAdapter } from "./redis/adapter";
import { SqsAdapter } from "./sqs/adapter";
import type { AdapterContext, BrokerAdapter } from "./types";

export function createAdapter(config: BrokerConfig, context: AdapterContext, timeoutMs: number): BrokerAdapter {
  switch (config.kind) {
    case "redis":
      return new RedisAdapter(config, context, timeoutMs);
    case "rabbitmq":
      return new RabbitMqAdapter(config, context);
    case "kafka":
      return new KafkaAdapter(config, context, timeoutMs);
    case "sqs":
      return new SqsAdapter(config, context, timeoutMs);
  }
}
