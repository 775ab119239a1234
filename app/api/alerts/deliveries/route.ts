import { z } from "zod";
import { listDeliveries } from "@/server/alerts/delivery";
import { limit } from "@/server/http/inputs";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute(
  { permission: "read", query: z.object({ state: z.enum(["pending", "delivered", "dead"]).optional(), limit: limit(500, 100) }) },
  async ({ query }) => listDeliveries(query.state, query.limit),
);
