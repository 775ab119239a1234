// A host's kernel settings against what Redis, RabbitMQ and Kafka hosts need, from their
// own documentation: each finding says what to set.

export interface KernelFinding {
  setting: string;
  value: number | string | null;
  advice: string;
}

type Settings = Record<string, number | string | null>;

const RULES: Array<{ setting: string; wrong: (value: number | string) => boolean; advice: string }> = [
  {
    setting: "vm.overcommit_memory",
    wrong: (value) => value !== 1,
    advice: "Redis asks for vm.overcommit_memory = 1, or a background save (fork) can fail under memory pressure.",
  },
  {
    setting: "transparent_hugepage",
    wrong: (value) => value !== "never" && value !== "madvise",
    advice: "Transparent huge pages set to always add latency and memory to Redis and Kafka: set them to never (or madvise).",
  },
  {
    setting: "net.core.somaxconn",
    wrong: (value) => typeof value === "number" && value < 1024,
    advice: "net.core.somaxconn below 1024 caps the accept queue (Redis's tcp-backlog is 511; RabbitMQ and Kafka take bursts of connections): raise it to 4096.",
  },
  {
    setting: "vm.swappiness",
    wrong: (value) => typeof value === "number" && value > 10,
    advice: "Brokers should not swap: Kafka recommends vm.swappiness = 1 (RabbitMQ and Redis suffer alike).",
  },
  {
    setting: "open_files_limit",
    wrong: (value) => typeof value === "number" && value < 65536,
    advice: "The agent's open-files limit is below 65536, which RabbitMQ and Kafka need for connections, queues and log segments: raise LimitNOFILE.",
  },
  {
    setting: "fs.file-max",
    wrong: (value) => typeof value === "number" && value < 100_000,
    advice: "fs.file-max below 100,000 caps every process's files together: raise it.",
  },
  {
    setting: "net.core.netdev_max_backlog",
    wrong: (value) => typeof value === "number" && value < 1000,
    advice: "net.core.netdev_max_backlog below 1000 drops packets in bursts: raise it (Kafka guides use 5000 or more).",
  },
];

export function kernelFindings(settings: Settings | undefined): KernelFinding[] {
  if (!settings) return [];
  return RULES.flatMap((rule) => {
    const value = settings[rule.setting];
    return value !== undefined && value !== null && rule.wrong(value) ? [{ setting: rule.setting, value, advice: rule.advice }] : [];
  });
}
