import { listHosts } from "@/server/agents/hosts";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async () => listHosts());
