// Pure: where each RabbitMQ queue dead-letters to, found the way the broker routes:
// the dead-letter exchange and routing key come from the queue's arguments or, failing
// those, its effective policy; the exchange's bindings then name the queue(s) it reaches.
import { queueName } from "./parse";

export interface ManagementBinding {
  source: string;
  vhost: string;
  destination: string;
  destination_type: "queue" | "exchange";
  routing_key: string;
}

export interface ManagementExchange {
  name: string;
  vhost: string;
  type: string;
  arguments?: Record<string, unknown>;
  policy?: string | null;
}

export interface DeadLetterSettings {
  exchange: string;
  /** The routing key set for dead letters, or null: then each message's own routing key. */
  routingKey: string | null;
  /** Where the settings come from. */
  from: "arguments" | "policy";
  deliveryLimit: number | null;
}

export function deadLetterSettings(argumentsOf: Record<string, unknown> | undefined, policy: Record<string, unknown> | null | undefined): DeadLetterSettings | null {
  const args = argumentsOf ?? {};
  const fromArgs = typeof args["x-dead-letter-exchange"] === "string";
  const exchange = fromArgs ? (args["x-dead-letter-exchange"] as string) : typeof policy?.["dead-letter-exchange"] === "string" ? (policy["dead-letter-exchange"] as string) : null;
  if (exchange === null) return null;
  const routingKey = fromArgs
    ? typeof args["x-dead-letter-routing-key"] === "string" ? (args["x-dead-letter-routing-key"] as string) : null
    : typeof policy?.["dead-letter-routing-key"] === "string" ? (policy["dead-letter-routing-key"] as string) : null;
  const limit = args["x-delivery-limit"] ?? policy?.["delivery-limit"];
  return { exchange, routingKey, from: fromArgs ? "arguments" : "policy", deliveryLimit: typeof limit === "number" ? limit : null };
}

/** AMQP topic matching: "*" is one word, "#" is zero or more. */
export function topicMatches(pattern: string, routingKey: string): boolean {
  const words = routingKey === "" ? [] : routingKey.split(".");
  const parts = pattern === "" ? [] : pattern.split(".");
  const match = (p: number, w: number): boolean => {
    if (p === parts.length) return w === words.length;
    if (parts[p] === "#") return match(p + 1, w) || (w < words.length && match(p, w + 1));
    if (w === words.length) return false;
    return (parts[p] === "*" || parts[p] === words[w]) && match(p + 1, w + 1);
  };
  return match(0, 0);
}

export class Topology {
  private readonly bindingsBySource = new Map<string, ManagementBinding[]>();
  private readonly exchanges = new Map<string, ManagementExchange>();

  constructor(bindings: ManagementBinding[], exchanges: ManagementExchange[]) {
    for (const binding of bindings) {
      const key = `${binding.vhost}\u0000${binding.source}`;
      this.bindingsBySource.set(key, [...(this.bindingsBySource.get(key) ?? []), binding]);
    }
    for (const exchange of exchanges) this.exchanges.set(`${exchange.vhost}\u0000${exchange.name}`, exchange);
  }

  /**
   * The queues (Varal names) a message published to `exchange` with `routingKey` reaches.
   * `routingKey` null means "the message's own key", unknown here: then only bindings that
   * take any key (fanout, "#") count. Exchange-to-exchange bindings are followed, bounded.
   */
  route(vhost: string, exchange: string, routingKey: string | null, depth = 0): string[] {
    if (exchange === "") return routingKey ? [queueName(vhost, routingKey)] : [];
    if (depth > 5) return [];
    const type = this.exchanges.get(`${vhost}\u0000${exchange}`)?.type ?? "direct";
    const reached = new Set<string>();
    for (const binding of this.bindingsBySource.get(`${vhost}\u0000${exchange}`) ?? []) {
      const matches =
        type === "fanout" || type === "headers"
          ? true
          : routingKey === null
            ? type === "topic" && binding.routing_key === "#"
            : type === "topic"
              ? topicMatches(binding.routing_key, routingKey)
              : binding.routing_key === routingKey;
      if (!matches) continue;
      if (binding.destination_type === "queue") reached.add(queueName(vhost, binding.destination));
      else for (const queue of this.route(vhost, binding.destination, routingKey, depth + 1)) reached.add(queue);
    }
    return [...reached];
  }

  /** Exchanges where a message that matches no binding is dropped: no alternate exchange. */
  exchangesWithoutAlternate(): ManagementExchange[] {
    return [...this.exchanges.values()].filter(
      (exchange) =>
        exchange.name !== "" &&
        !exchange.name.startsWith("amq.") &&
        typeof exchange.arguments?.["alternate-exchange"] !== "string",
    );
  }
}
