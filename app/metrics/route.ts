import { collectorState } from "@/server/collect/state";
import { withRoute } from "@/server/http/route";
import { renderMetrics } from "@/server/metrics/prometheus";

export const dynamic = "force-dynamic";

export const GET = withRoute(
  { permission: "read" },
  async () =>
    new Response(renderMetrics([...collectorState().brokers.values()]), {
      headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" },
    }),
);
