import { z } from "zod";
import { HISTORY_METRICS, HISTORY_RANGES, type HistoryRange } from "@/server/collect/history";
import { queueHistory } from "@/server/collect/queries";
import { queueIdFromParams } from "@/server/http/params";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

const query = z.object({
  metric: z.enum(HISTORY_METRICS).default("depth"),
  range: z.enum(Object.keys(HISTORY_RANGES) as [HistoryRange, ...HistoryRange[]]).default("1h"),
});

export const GET = withRoute({ permission: "read", query }, async ({ params, query }) =>
  queueHistory(queueIdFromParams(params), query.metric, query.range),
);
