import { recordAudit } from "@/server/audit/log";
import { revokeToken } from "@/server/auth/tokens";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const DELETE = withRoute({ permission: "admin" }, async ({ params, principal, ip }) => {
  const id = String(params.id);
  const { name } = await revokeToken(id);
  await recordAudit({ actor: principal.name, event: "token.revoke", target: name, outcome: "ok", message: `token id ${id}`, ip });
  return { ok: true };
});
