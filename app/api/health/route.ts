import { alertsRunning } from "@/server/alerts/runtime";
import { storeProvider } from "@/server/db/client";
import { withPublicRoute } from "@/server/http/route";
import { startedAt } from "@/server/runtime";
import packageJson from "@/package.json";

export const dynamic = "force-dynamic";

export const GET = withPublicRoute({}, async () => ({
  status: "ok",
  version: packageJson.version,
  store: storeProvider(),
  uptimeSeconds: Math.round((Date.now() - startedAt()) / 1000),
  // Whether this replica evaluates alert rules (one does at a time).
  alertsLeader: alertsRunning()?.engine.isLeader ?? false,
}));
