// Pure: Kafka admin results to consumer-group observations, one per group and topic.
import type { QueueObservation } from "../types";

export interface PartitionOffsets {
  partition: number;
  /** The group's committed offset; -1 when it has none. */
  committed: number;
  logEnd: number;
  logStart: number;
}

export interface GroupTopicOffsets {
  group: string;
  topic: string;
  state: string;
  members: number;
  partitions: PartitionOffsets[];
}

/** Lag of one partition as Kafka's own tool counts it: end minus committed, unknown without a commit. */
export function partitionLag(partition: PartitionOffsets): number | null {
  if (partition.committed < 0) return null;
  return Math.max(0, partition.logEnd - partition.committed);
}

export function groupObservation(offsets: GroupTopicOffsets): QueueObservation {
  const lags = offsets.partitions.map(partitionLag);
  const known = lags.filter((lag): lag is number => lag !== null);
  const totalLag = known.length > 0 ? known.reduce((sum, lag) => sum + lag, 0) : null;
  const endSum = offsets.partitions.reduce((sum, partition) => sum + partition.logEnd, 0);
  const committedSum = offsets.partitions.reduce((sum, partition) => sum + Math.max(0, partition.committed), 0);
  return {
    name: `${offsets.group}@${offsets.topic}`,
    type: "consumer-group",
    depth: totalLag,
    inflight: null,
    delayed: null,
    consumers: offsets.members,
    counters: { in: endSum, out: committedSum },
    lagMessages: totalLag,
    lagSeconds: totalLag === 0 ? 0 : null,
    dlqName: null,
    facts: {
      group: offsets.group,
      topic: offsets.topic,
      groupState: offsets.state,
      partitions: offsets.partitions.map((partition, index) => ({ ...partition, lag: lags[index] })),
    },
  };
}
