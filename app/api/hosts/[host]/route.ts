import { getHost } from "@/server/agents/hosts";
import { hostFromParams } from "@/server/http/params";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async ({ params }) => getHost(hostFromParams(params)));
