import { z } from "zod";
import { browseMessages } from "@/server/brokers/browse";
import { getQueue } from "@/server/collect/queries";
import { collectorState } from "@/server/collect/state";
import { limit } from "@/server/http/inputs";
import { queueIdFromParams } from "@/server/http/params";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

const query = z.object({
  limit: limit(200, 50),
  cursor: z.string().max(100_000).optional(),
  /** Kafka only: read from this offset on every partition, or from the first record at or after this time. */
  fromOffset: z.coerce.number().int().min(0).optional(),
  fromTime: z.string().max(64).optional(),
  confirmSideEffects: z.enum(["true", "false"]).default("false"),
});

export const GET = withRoute({ permission: "read", query }, async ({ params, query }) => {
  const queue = getQueue(queueIdFromParams(params));
  const broker = collectorState().brokers.get(queue.broker)!.config;
  const from = query.fromOffset !== undefined || query.fromTime !== undefined ? { offset: query.fromOffset, time: query.fromTime } : undefined;
  return browseMessages({ queue, broker, limit: query.limit, cursor: query.cursor, confirmSideEffects: query.confirmSideEffects === "true", from });
});
