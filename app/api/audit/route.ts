import { z } from "zod";
import { listAudit } from "@/server/audit/log";
import { cursor, limit } from "@/server/http/inputs";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute(
  { permission: "read", query: z.object({ limit: limit(500, 100), cursor: z.string().regex(/^\d+$/).optional() }) },
  async ({ query }) => listAudit(query.limit, query.cursor),
);
