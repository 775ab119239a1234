import { getAction } from "@/server/actions/service";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async ({ params }) => getAction(String(params.id)));
