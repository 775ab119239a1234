import { z } from "zod";
import { QUEUE_SORTS, listQueuesJson } from "@/server/collect/queries";
import { BROKER_KINDS } from "@/server/config/schema";
import { limit } from "@/server/http/inputs";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

const query = z.object({
  broker: z.string().max(100).optional(),
  kind: z.enum(BROKER_KINDS).optional(),
  status: z.enum(["ok", "warning", "stalled", "stopped", "unreachable"]).optional(),
  q: z.string().max(200).optional(),
  sort: z.enum(QUEUE_SORTS).default("trouble"),
  limit: limit(5000, 100),
  cursor: z.string().regex(/^\d+$/, "a cursor from a previous page").optional(),
});

export const GET = withRoute(
  { permission: "read", query },
  async ({ query }) => new Response(listQueuesJson(query), { headers: { "content-type": "application/json" } }),
);
