import { cancelAction } from "@/server/actions/service";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = withRoute({ permission: "act" }, async ({ params, principal, ip }) =>
  cancelAction(principal, String(params.id), ip),
);
