// Reading Redis queues without side effects: LRANGE for lists, the peek script for
// priority queues (waiting messages, or dead letters with their last error).
import type { BrokerConfigOf } from "../../config/schema";
import { VaralError } from "../../errors";
import type { BrowsePage, BrowseRequest } from "../browse";
import { previewPayload } from "../preview";
import { createRedisClient } from "./adapter";
import { PriorityQueue } from "./priority-queue";

const iso = (ms: number | undefined | null) => (ms ? new Date(ms).toISOString() : null);

export async function browseRedis({ queue, broker, limit, cursor }: BrowseRequest): Promise<BrowsePage> {
  const start = cursor ? Number(cursor) : 0;
  if (!Number.isInteger(start) || start < 0) throw new VaralError("invalid_input", "cursor must come from a previous page.");
  const client = createRedisClient((broker as BrokerConfigOf<"redis">).url, 5_000, "varal-browse");
  client.on("error", () => undefined);
  try {
    await client.connect();
    if (queue.type === "list") {
      // Oldest first: producers LPUSH, so the oldest item is at the right end.
      const items = await client.lrangeBuffer(queue.name, -(start + limit), -(start + 1));
      items.reverse();
      return {
        sideEffects: "none",
        items: items.map((item, index) => ({
          id: `#${start + index}`,
          payload: previewPayload(item),
          headers: {},
          reason: null,
          attempts: null,
          priority: null,
          firstFailureAt: null,
          lastFailureAt: null,
          enqueuedAt: null,
          originalDestination: null,
        })),
        nextCursor: items.length === limit ? String(start + limit) : null,
      };
    }
    const deadLetterOf = queue.facts.deadLetterOf as string | undefined;
    const pq = new PriorityQueue(client, deadLetterOf ?? queue.name);
    const messages = await pq.peek(deadLetterOf ? "dead" : "wait", start, limit);
    return {
      sideEffects: "none",
      items: messages.map((message) => ({
        id: message.id,
        payload: message.payload ? previewPayload(message.payload) : null,
        headers: message.meta.idempotencyKey ? { idempotencyKey: message.meta.idempotencyKey } : {},
        reason: message.meta.lastError ?? null,
        attempts: message.attempts,
        priority: message.priority,
        firstFailureAt: iso(message.meta.firstFailedAt),
        lastFailureAt: iso(message.meta.lastFailedAt),
        enqueuedAt: iso(message.meta.enqueuedAt),
        originalDestination: deadLetterOf ?? null,
      })),
      nextCursor: messages.length === limit ? String(start + limit) : null,
    };
  } finally {
    client.disconnect();
  }
}
