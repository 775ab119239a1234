import { listActiveAlerts } from "@/server/alerts/queries";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async () => listActiveAlerts());
