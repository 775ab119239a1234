// RabbitMQ: reads queues through the management HTTP API, paged, with only the needed columns.
import type { BrokerConfigOf } from "../../config/schema";
import { mapBounded, type AdapterContext, type BrokerAdapter, type PollResult } from "../types";
import { QUEUE_COLUMNS, queueName, queueObservation, type ManagementPage, type ManagementQueue } from "./parse";
import { Topology, deadLetterSettings, type ManagementBinding, type ManagementExchange } from "./topology";

interface ManagementConsumer {
  queue: { name: string; vhost: string };
  prefetch_count: number;
}

const PAGE_SIZE = 500;
/** Pages asked for at once: the management API answers each from its own worker. */
const PAGE_CONCURRENCY = 4;

export interface ManagementCredentials {
  username: string;
  password: string;
}

export function managementCredentials(config: BrokerConfigOf<"rabbitmq">): ManagementCredentials {
  const amqp = new URL(config.url);
  return {
    username: config.username ?? (decodeURIComponent(amqp.username) || "guest"),
    password: config.password ?? (decodeURIComponent(amqp.password) || "guest"),
  };
}

export class RabbitMqManagement {
  private readonly base: string;
  private readonly authorization: string;

  constructor(
    private readonly config: BrokerConfigOf<"rabbitmq">,
    private readonly context: AdapterContext,
  ) {
    this.base = config.managementUrl.replace(/\/+$/, "");
    const { username, password } = managementCredentials(config);
    this.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  }

  async get<T>(path: string, signal: AbortSignal): Promise<T> {
    return (await this.request("GET", path, signal)).json() as Promise<T>;
  }

  async request(method: string, path: string, signal: AbortSignal): Promise<Response> {
    this.context.countCalls();
    let response: Response;
    try {
      response = await fetch(`${this.base}${path}`, { method, headers: { authorization: this.authorization }, signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new Error(
        `RabbitMQ management API at ${this.base} is not reachable (${(error as Error).message}): ` +
          `check brokers.${this.config.name}.managementUrl and that the rabbitmq_management plugin is enabled`,
      );
    }
    if (response.status === 401) {
      const { username } = managementCredentials(this.config);
      throw new Error(
        `RabbitMQ management API refused the credentials for user ${username}: set brokers.${this.config.name}.username and password`,
      );
    }
    if (!response.ok) {
      throw new Error(`RabbitMQ management API answered ${response.status} to ${method} ${path.split("?")[0]}`);
    }
    return response;
  }
}

export class RabbitMqAdapter implements BrokerAdapter {
  readonly kind = "rabbitmq" as const;
  private readonly management: RabbitMqManagement;

  constructor(config: BrokerConfigOf<"rabbitmq">, context: AdapterContext) {
    this.management = new RabbitMqManagement(config, context);
  }

  async poll(signal: AbortSignal): Promise<PollResult> {
    const columns = encodeURIComponent(QUEUE_COLUMNS.join(","));
    const page = (number: number) =>
      this.management.get<ManagementPage<ManagementQueue>>(`/api/queues?page=${number}&page_size=${PAGE_SIZE}&columns=${columns}`, signal);
    // Topology and consumers (three calls, whatever the number of queues) while the pages come.
    const topologyCalls = Promise.all([
      this.management.get<ManagementBinding[]>("/api/bindings", signal),
      this.management.get<ManagementExchange[]>("/api/exchanges?columns=name,vhost,type,arguments,policy", signal),
      this.management.get<ManagementConsumer[]>("/api/consumers", signal),
    ]);
    // Awaited below; marked handled now so that a failure of page 1 does not leave it dangling.
    topologyCalls.catch(() => undefined);
    const first = await page(1);
    const rest = await mapBounded(
      Array.from({ length: Math.max(0, first.page_count - 1) }, (_, index) => index + 2),
      PAGE_CONCURRENCY,
      page,
    );
    const queues = [first, ...rest].flatMap((result) => result.items);
    const [bindings, exchanges, consumers] = await topologyCalls;
    const topology = new Topology(bindings, exchanges);
    const prefetch = new Map<string, number[]>();
    for (const consumer of consumers) {
      const name = queueName(consumer.queue.vhost, consumer.queue.name);
      prefetch.set(name, [...(prefetch.get(name) ?? []), consumer.prefetch_count]);
    }
    const now = Date.now();
    const observations = queues.map((queue) => {
      const settings = deadLetterSettings(queue.arguments, queue.effective_policy_definition);
      const deadLetter = settings ? { ...settings, queues: topology.route(queue.vhost, settings.exchange, settings.routingKey ?? queue.name) } : null;
      return queueObservation(queue, now, { deadLetter, consumerPrefetch: prefetch.get(queueName(queue.vhost, queue.name)) ?? [] });
    });
    const unguarded = topology.exchangesWithoutAlternate();
    return {
      queues: observations,
      health: {
        facts: { exchangesWithoutAlternate: unguarded.map((exchange) => (exchange.vhost === "/" ? exchange.name : `${exchange.vhost}/${exchange.name}`)) },
        warnings: [],
      },
    };
  }

  async close(): Promise<void> {}
}
