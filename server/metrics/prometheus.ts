// /metrics in the Prometheus text format, from the snapshot cache (never a broker call).
import type { BrokerState } from "../collect/state";
import type { QueueSnapshot } from "../collect/snapshot";

interface Family {
  name: string;
  help: string;
  type: "gauge" | "counter";
  samples: Array<{ labels: Record<string, string>; value: number }>;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

export function renderFamilies(families: Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) {
      const labels = Object.entries(sample.labels)
        .map(([key, value]) => `${key}="${escapeLabel(value)}"`)
        .join(",");
      lines.push(`${family.name}${labels ? `{${labels}}` : ""} ${formatValue(sample.value)}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

const QUEUE_GAUGES: Array<{ name: string; help: string; value: (queue: QueueSnapshot) => number | null }> = [
  { name: "varal_queue_depth_messages", help: "Messages ready to be consumed.", value: (queue) => queue.depth },
  { name: "varal_queue_inflight_messages", help: "Messages delivered and not yet acknowledged.", value: (queue) => queue.inflight },
  { name: "varal_queue_delayed_messages", help: "Messages not yet due.", value: (queue) => queue.delayed },
  { name: "varal_queue_consumers", help: "Consumers attached.", value: (queue) => queue.consumers },
  { name: "varal_queue_lag_messages", help: "Messages behind.", value: (queue) => queue.lagMessages },
  { name: "varal_queue_lag_seconds", help: "Age of the oldest unconsumed message, or time lag.", value: (queue) => queue.lagSeconds },
  { name: "varal_queue_in_rate_per_second", help: "Messages arriving per second.", value: (queue) => queue.rateIn },
  { name: "varal_queue_out_rate_per_second", help: "Messages consumed per second.", value: (queue) => queue.rateOut },
  { name: "varal_queue_dlq_depth_messages", help: "Messages in the queue's dead-letter queue.", value: (queue) => queue.dlq?.depth ?? null },
];

const STATUSES = ["ok", "warning", "stalled", "stopped", "unreachable"] as const;

/** A Kafka partition's figures as the adapter keeps them in a queue's facts. */
interface PartitionFacts {
  partition: number;
  lag: number | null;
  lagSeconds: number | null;
}

const PARTITION_GAUGES: Array<{ name: string; help: string; value: (partition: PartitionFacts) => number | null }> = [
  { name: "varal_partition_lag_messages", help: "Records of a Kafka partition the group has not committed past.", value: (partition) => partition.lag },
  { name: "varal_partition_lag_seconds", help: "How long ago the next record the group reads was written.", value: (partition) => partition.lagSeconds },
];

function partitionsOf(queue: QueueSnapshot): PartitionFacts[] {
  return queue.kind === "kafka" && Array.isArray(queue.facts.partitions) ? (queue.facts.partitions as PartitionFacts[]) : [];
}

export function renderMetrics(brokers: BrokerState[]): string {
  const queues = brokers.flatMap((broker) => broker.snapshots);
  const labels = (queue: QueueSnapshot) => ({ broker: queue.broker, queue: queue.name });
  const families: Family[] = QUEUE_GAUGES.map((gauge) => ({
    name: gauge.name,
    help: gauge.help,
    type: "gauge",
    samples: queues.flatMap((queue) => {
      const value = gauge.value(queue);
      return value === null ? [] : [{ labels: labels(queue), value }];
    }),
  }));
  for (const gauge of PARTITION_GAUGES) {
    families.push({
      name: gauge.name,
      help: gauge.help,
      type: "gauge",
      samples: queues.flatMap((queue) =>
        partitionsOf(queue).flatMap((partition) => {
          const value = gauge.value(partition);
          const where = { ...labels(queue), group: String(queue.facts.group), topic: String(queue.facts.topic), partition: String(partition.partition) };
          return value === null ? [] : [{ labels: where, value }];
        }),
      ),
    });
  }
  families.push({
    name: "varal_queue_status",
    help: "1 for the queue's current status.",
    type: "gauge",
    samples: queues.flatMap((queue) => STATUSES.map((status) => ({ labels: { ...labels(queue), status }, value: queue.status === status ? 1 : 0 }))),
  });
  families.push(
    {
      name: "varal_broker_up",
      help: "1 when the broker's last poll succeeded (it may still be degraded).",
      type: "gauge",
      samples: brokers.map((broker) => ({ labels: { broker: broker.config.name, kind: broker.config.kind }, value: broker.status === "unreachable" ? 0 : 1 })),
    },
    {
      name: "varal_broker_warnings",
      help: "How many of the broker's own settings put queued messages at risk.",
      type: "gauge",
      samples: brokers.map((broker) => ({ labels: { broker: broker.config.name }, value: broker.health?.warnings.length ?? 0 })),
    },
    {
      name: "varal_broker_poll_duration_seconds",
      help: "Duration of the broker's last poll.",
      type: "gauge",
      samples: brokers.flatMap((broker) => (broker.lastPollMs === null ? [] : [{ labels: { broker: broker.config.name }, value: broker.lastPollMs / 1000 }])),
    },
    {
      name: "varal_broker_calls_total",
      help: "Calls made to the broker by Varal's collectors.",
      type: "counter",
      samples: brokers.map((broker) => ({ labels: { broker: broker.config.name }, value: broker.brokerCalls })),
    },
  );
  return renderFamilies(families);
}
