import { recordAudit } from "@/server/audit/log";
import { deleteChannel } from "@/server/alerts/rules";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const DELETE = withRoute({ permission: "admin" }, async ({ params, principal, ip }) => {
  await deleteChannel(String(params.id));
  await recordAudit({ actor: principal.name, event: "alert-channel.delete", target: String(params.id), outcome: "ok", ip });
  return { ok: true };
});
