// Kafka: consumer groups and their lag through the admin API, with bounded concurrency.
import { Kafka, logLevel, type Admin } from "kafkajs";
import type { BrokerConfigOf } from "../../config/schema";
import { abortable, mapBounded, type AdapterContext, type BrokerAdapter, type PollResult, type QueueObservation } from "../types";
import { groupObservation, type GroupTopicOffsets } from "./parse";

const GROUP_CONCURRENCY = 16;

export function createKafka(config: BrokerConfigOf<"kafka">, timeoutMs: number): Kafka {
  return new Kafka({
    clientId: config.clientId,
    brokers: config.brokers,
    connectionTimeout: Math.min(timeoutMs, 3_000),
    requestTimeout: timeoutMs,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  });
}

export class KafkaAdapter implements BrokerAdapter {
  readonly kind = "kafka" as const;
  private readonly kafka: Kafka;
  private admin: Admin | null = null;

  constructor(
    private readonly config: BrokerConfigOf<"kafka">,
    private readonly context: AdapterContext,
    timeoutMs: number,
  ) {
    this.kafka = createKafka(config, timeoutMs);
  }

  private async connectedAdmin(signal: AbortSignal): Promise<Admin> {
    if (this.admin) return this.admin;
    const admin = this.kafka.admin();
    this.context.countCalls();
    await abortable(admin.connect(), signal);
    this.admin = admin;
    return admin;
  }

  async poll(signal: AbortSignal): Promise<PollResult> {
    try {
      return { queues: await abortable(this.read(signal), signal) };
    } catch (error) {
      // A broken connection is rebuilt on the next poll rather than reused.
      const admin = this.admin;
      this.admin = null;
      await admin?.disconnect().catch(() => undefined);
      if (signal.aborted) throw error;
      throw new Error(
        `Kafka at ${this.config.brokers.join(",")} failed: ${(error as Error).message}; check brokers.${this.config.name}.brokers and that the broker is running`,
      );
    }
  }

  private async read(signal: AbortSignal): Promise<QueueObservation[]> {
    const admin = await this.connectedAdmin(signal);
    const { groups } = await admin.listGroups();
    this.context.countCalls();
    const consumerGroups = groups.filter((group) => group.protocolType === "consumer" || group.protocolType === "");
    if (consumerGroups.length === 0) return [];
    const described = await admin.describeGroups(consumerGroups.map((group) => group.groupId));
    this.context.countCalls();
    const byGroup = new Map(described.groups.map((group) => [group.groupId, group]));

    const committedByGroup = await mapBounded(consumerGroups, GROUP_CONCURRENCY, async (group) => {
      this.context.countCalls();
      return { group: group.groupId, topics: await admin.fetchOffsets({ groupId: group.groupId }) };
    });

    const topics = [...new Set(committedByGroup.flatMap((entry) => entry.topics.map((topic) => topic.topic)))];
    const endOffsets = new Map(
      await mapBounded(topics, GROUP_CONCURRENCY, async (topic) => {
        this.context.countCalls();
        return [topic, await admin.fetchTopicOffsets(topic)] as const;
      }),
    );

    const observations: QueueObservation[] = [];
    for (const { group, topics: committedTopics } of committedByGroup) {
      const description = byGroup.get(group);
      for (const { topic, partitions } of committedTopics) {
        const ends = endOffsets.get(topic) ?? [];
        const offsets: GroupTopicOffsets = {
          group,
          topic,
          state: description?.state ?? "Unknown",
          members: description?.members.length ?? 0,
          partitions: partitions.map((partition) => {
            const end = ends.find((entry) => entry.partition === partition.partition);
            return {
              partition: partition.partition,
              committed: Number(partition.offset),
              logEnd: Number(end?.high ?? 0),
              logStart: Number(end?.low ?? 0),
            };
          }),
        };
        observations.push(groupObservation(offsets));
      }
    }
    return observations;
  }

  async close(): Promise<void> {
    await this.admin?.disconnect().catch(() => undefined);
    this.admin = null;
  }
}
