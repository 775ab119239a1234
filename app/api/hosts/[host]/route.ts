import { forgetHost, getHost } from "@/server/agents/hosts";
import { recordAudit } from "@/server/audit/log";
import { hostFromParams } from "@/server/http/params";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async ({ params }) => getHost(hostFromParams(params)));

// A host that is gone for good; its agent, if it reports again, reappears.
export const DELETE = withRoute({ permission: "admin" }, async ({ params, principal, ip }) => {
  const host = hostFromParams(params);
  await forgetHost(host);
  await recordAudit({ actor: principal.name, event: "host.forget", target: host, outcome: "ok", ip });
  return { forgotten: host };
});
