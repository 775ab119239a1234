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
  cursor: z.string().max(200).optional(),
  confirmSideEffects: z.enum(["true", "false"]).default("false"),
});

export const GET = withRoute({ permission: "read", query }, async ({ params, query }) => {
  const queue = getQueue(queueIdFromParams(params));
  const broker = collectorState().brokers.get(queue.broker)!.config;
  return browseMessages({ queue, broker, limit: query.limit, cursor: query.cursor, confirmSideEffects: query.confirmSideEffects === "true" });
});
