// The actions each broker supports, registered once at start.
import { registerActionHandler } from "./registry";
import { kafkaHandlers } from "../brokers/kafka/actions";
import { rabbitmqHandlers } from "../brokers/rabbitmq/actions";
import { redisHandlers } from "../brokers/redis/actions";
import { sqsHandlers } from "../brokers/sqs/actions";

export function registerBuiltInActions(): void {
  for (const handler of [...redisHandlers, ...rabbitmqHandlers, ...kafkaHandlers, ...sqsHandlers]) registerActionHandler(handler);
}
