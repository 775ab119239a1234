// Batched reads that kafkajs's admin API does only one topic (or one record) at a time:
// partition metadata of every topic in one Metadata request, log start and end offsets of
// every partition in one ListOffsets request per leader, and the records at given offsets
// in one Fetch request per leader, outside any consumer group (nothing joins, nothing is
// committed). And a commit for a group without members in one OffsetCommit request, where
// kafkajs's admin joins the group with a consumer (seconds per call). kafkajs keeps its
// cluster client private; this file is the one place that reaches it, so a change of
// client touches nothing else.
import type { Kafka } from "kafkajs";

const COMMIT_ATTEMPTS = 6;
const RETRIABLE_COORDINATOR_ERRORS = new Set(["NOT_COORDINATOR_FOR_GROUP", "GROUP_LOAD_IN_PROGRESS", "GROUP_COORDINATOR_NOT_AVAILABLE"]);

/** ListOffsets timestamps with a special meaning, as in Kafka's protocol. */
const LATEST = -1;
const EARLIEST = -2;
/** Read what producers wrote, committed or not, as Kafka's own tools count the end offset. */
const READ_UNCOMMITTED = 0;

export interface PartitionMetadata {
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
}

export interface TopicMetadata {
  topic: string;
  partitions: PartitionMetadata[];
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface PartitionRange extends TopicPartition {
  /** The first offset still in the log. */
  start: number;
  /** The offset the next record will get (the high watermark). */
  end: number;
}

export interface WireRecord extends TopicPartition {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[] | null>;
}

interface KafkaJsBroker {
  metadata(topics: string[]): Promise<{ topicMetadata: Array<{ topic: string; partitionMetadata: Array<{ partitionId: number; leader: number; replicas: number[]; isr: number[] }> }> }>;
  listOffsets(request: {
    replicaId?: number;
    isolationLevel: number;
    topics: Array<{ topic: string; partitions: Array<{ partition: number; timestamp: number }> }>;
  }): Promise<{ responses: Array<{ topic: string; partitions: Array<{ partition: number; offset: string; errorCode: number }> }> }>;
  fetch(request: {
    replicaId?: number;
    isolationLevel: number;
    maxWaitTime: number;
    minBytes: number;
    maxBytes: number;
    topics: Array<{ topic: string; partitions: Array<{ partition: number; fetchOffset: string; maxBytes: number }> }>;
  }): Promise<{
    responses: Array<{
      topicName: string;
      partitions: Array<{
        partition: number;
        errorCode: number;
        highWatermark: string;
        messages: Array<{ offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers?: Record<string, Buffer | Buffer[] | null>; isControlRecord?: boolean }>;
      }>;
    }>;
  }>;
}

interface KafkaJsCoordinator {
  offsetCommit(request: {
    groupId: string;
    groupGenerationId: number;
    memberId: string;
    retentionTime?: number;
    topics: Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>;
  }): Promise<unknown>;
}

interface KafkaJsCluster {
  findGroupCoordinator(request: { groupId: string }): Promise<KafkaJsCoordinator>;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  isConnected(): boolean;
  refreshMetadata(): Promise<void>;
  findBroker(request: { nodeId: string }): Promise<KafkaJsBroker>;
  getNodeIds(): number[];
}

function createCluster(kafka: Kafka): KafkaJsCluster {
  const factory = Object.getOwnPropertySymbols(kafka).find((symbol) => symbol.description === "private:Kafka:createCluster");
  if (!factory) throw new Error("this kafkajs release keeps its cluster client elsewhere: pin kafkajs 2.2");
  const create = (kafka as unknown as Record<symbol, (options: object) => KafkaJsCluster>)[factory];
  return create({ allowAutoTopicCreation: false, isolationLevel: READ_UNCOMMITTED });
}

export function partitionKey(item: TopicPartition): string {
  return `${item.topic}\u0000${item.partition}`;
}

function groupBy<T>(items: readonly T[], key: (item: T) => number): Map<number, T[]> {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const id = key(item);
    const group = groups.get(id);
    if (group) group.push(item);
    else groups.set(id, [item]);
  }
  return groups;
}

function byTopic<T extends TopicPartition>(items: readonly T[]): Map<string, T[]> {
  const topics = new Map<string, T[]>();
  for (const item of items) {
    const list = topics.get(item.topic);
    if (list) list.push(item);
    else topics.set(item.topic, [item]);
  }
  return topics;
}

export class KafkaWire {
  private readonly cluster: KafkaJsCluster;
  /** Leader of each partition, from the last metadata read. */
  private leaders = new Map<string, number>();

  constructor(kafka: Kafka) {
    this.cluster = createCluster(kafka);
  }

  async connect(): Promise<void> {
    if (!this.cluster.isConnected()) await this.cluster.connect();
  }

  async disconnect(): Promise<void> {
    await this.cluster.disconnect();
  }

  /** Every topic (or the named ones) with each partition's leader, replicas and in-sync replicas. */
  async metadata(topics: string[] = []): Promise<TopicMetadata[]> {
    await this.connect();
    // The broker list may have changed since the last read (a restart, a new broker).
    await this.cluster.refreshMetadata();
    const response = await this.anyBroker((broker) => broker.metadata(topics)).catch((error: { type?: string }) => {
      // Asking for topics by name: one that does not exist is an answer, not a failure.
      if (error.type === "UNKNOWN_TOPIC_OR_PARTITION" && topics.length > 0) return { topicMetadata: [] };
      throw error;
    });
    const result = response.topicMetadata.map((topic) => ({
      topic: topic.topic,
      partitions: topic.partitionMetadata
        .map((partition) => ({ partition: partition.partitionId, leader: partition.leader, replicas: partition.replicas, isr: partition.isr }))
        .sort((a, b) => a.partition - b.partition),
    }));
    for (const topic of result) for (const partition of topic.partitions) this.leaders.set(partitionKey({ topic: topic.topic, partition: partition.partition }), partition.leader);
    return result;
  }

  /** Runs a request on the first broker that answers, failing with the last error. */
  private async anyBroker<T>(request: (broker: KafkaJsBroker) => Promise<T>): Promise<T> {
    let lastError: unknown = new Error("no broker known");
    for (const nodeId of this.cluster.getNodeIds()) {
      try {
        return await request(await this.cluster.findBroker({ nodeId: String(nodeId) }));
      } catch (error) {
        lastError = error;
        if ((error as { type?: string }).type === "UNKNOWN_TOPIC_OR_PARTITION") break;
      }
    }
    throw lastError;
  }

  private leaderOf(item: TopicPartition): number {
    const leader = this.leaders.get(partitionKey(item));
    if (leader === undefined || leader < 0) throw new Error(`partition ${item.partition} of topic ${item.topic} has no leader now`);
    return leader;
  }

  /** Offsets at a timestamp, or the earliest/latest: one request per leader. */
  private async listOffsets(partitions: readonly TopicPartition[], timestamp: number): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    await Promise.all(
      [...groupBy(partitions, (item) => this.leaderOf(item))].map(async ([nodeId, items]) => {
        const broker = await this.cluster.findBroker({ nodeId: String(nodeId) });
        const response = await broker.listOffsets({
          replicaId: -1,
          isolationLevel: READ_UNCOMMITTED,
          topics: [...byTopic(items)].map(([topic, list]) => ({ topic, partitions: list.map((item) => ({ partition: item.partition, timestamp })) })),
        });
        for (const topic of response.responses) {
          for (const partition of topic.partitions) result.set(partitionKey({ topic: topic.topic, partition: partition.partition }), Number(partition.offset));
        }
      }),
    );
    return result;
  }

  /** Log start and end offsets of each partition (call metadata() first). */
  async ranges(partitions: readonly TopicPartition[]): Promise<PartitionRange[]> {
    if (partitions.length === 0) return [];
    const [starts, ends] = await Promise.all([this.listOffsets(partitions, EARLIEST), this.listOffsets(partitions, LATEST)]);
    return partitions.map((item) => {
      const key = partitionKey(item);
      return { topic: item.topic, partition: item.partition, start: starts.get(key) ?? 0, end: ends.get(key) ?? 0 };
    });
  }

  /** For each partition, the offset of the first record at or after the time; the end offset if none. */
  async offsetsForTime(partitions: readonly TopicPartition[], timeMs: number): Promise<Map<string, number>> {
    const found = await this.listOffsets(partitions, timeMs);
    const ends = await this.listOffsets(
      partitions.filter((item) => (found.get(partitionKey(item)) ?? -1) < 0),
      LATEST,
    );
    return new Map([...found].map(([key, offset]) => [key, offset >= 0 ? offset : (ends.get(key) ?? 0)]));
  }

  /**
   * Records from each given offset: at most `maxBytesPerPartition` per partition (Kafka
   * still returns a whole first batch when it is larger), in one Fetch per leader. A
   * partition that cannot be read at that offset now gives no record.
   */
  async records(positions: ReadonlyArray<TopicPartition & { offset: number }>, maxBytesPerPartition: number): Promise<WireRecord[]> {
    const batches = await Promise.all(
      [...groupBy(positions, (item) => this.leaderOf(item))].map(async ([nodeId, items]) => {
        const broker = await this.cluster.findBroker({ nodeId: String(nodeId) });
        return this.fetchFrom(broker, items, maxBytesPerPartition);
      }),
    );
    return batches.flat();
  }

  /**
   * One Fetch. kafkajs fails a whole response for one partition's error (an offset that
   * retention just removed, a leader that moved) without always saying which: the request
   * is halved until the partitions that cannot be read now are alone, and they give nothing.
   */
  private async fetchFrom(broker: KafkaJsBroker, items: ReadonlyArray<TopicPartition & { offset: number }>, maxBytesPerPartition: number): Promise<WireRecord[]> {
    let response;
    try {
      response = await broker.fetch({
        replicaId: -1,
        isolationLevel: READ_UNCOMMITTED,
        maxWaitTime: 0,
        minBytes: 0,
        maxBytes: maxBytesPerPartition * items.length,
        topics: [...byTopic(items)].map(([topic, list]) => ({
          topic,
          partitions: list.map((item) => ({ partition: item.partition, fetchOffset: String(item.offset), maxBytes: maxBytesPerPartition })),
        })),
      });
    } catch (error) {
      const name = (error as Error).name;
      if (name !== "KafkaJSProtocolError" && name !== "KafkaJSOffsetOutOfRange") throw error;
      if (items.length === 1) return [];
      const half = Math.ceil(items.length / 2);
      const [first, second] = await Promise.all([this.fetchFrom(broker, items.slice(0, half), maxBytesPerPartition), this.fetchFrom(broker, items.slice(half), maxBytesPerPartition)]);
      return [...first, ...second];
    }
    const wanted = new Map(items.map((item) => [partitionKey(item), item.offset]));
    const records: WireRecord[] = [];
    for (const topic of response.responses) {
      for (const partition of topic.partitions) {
        const from = wanted.get(partitionKey({ topic: topic.topicName, partition: partition.partition })) ?? 0;
        for (const message of partition.messages) {
          const offset = Number(message.offset);
          // A batch starts before the offset asked for; control records mark transactions.
          if (offset < from || message.isControlRecord) continue;
          records.push({
            topic: topic.topicName,
            partition: partition.partition,
            offset,
            timestamp: Number(message.timestamp),
            key: message.key,
            value: message.value,
            headers: message.headers ?? {},
          });
        }
      }
    }
    return records;
  }

  /**
   * Commits offsets for a group with no live member, as a standalone client does
   * (generation -1, no member id). Kafka refuses it while the group has members.
   */
  async commit(groupId: string, topic: string, offsets: ReadonlyArray<{ partition: number; offset: number }>): Promise<void> {
    await this.connect();
    for (let attempt = 1; ; attempt++) {
      try {
        const coordinator = await this.cluster.findGroupCoordinator({ groupId });
        await coordinator.offsetCommit({
          groupId,
          groupGenerationId: -1,
          memberId: "",
          retentionTime: -1,
          topics: [{ topic, partitions: offsets.map((entry) => ({ partition: entry.partition, offset: String(entry.offset) })) }],
        });
        return;
      } catch (error) {
        // A group's coordinator moves, or is still loading its offsets (a new broker, a new
        // group): ask again for the coordinator, a few times, then give up.
        const type = (error as { type?: string }).type ?? "";
        if (attempt >= COMMIT_ATTEMPTS || !RETRIABLE_COORDINATOR_ERRORS.has(type)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
      }
    }
  }
}
