import { recordAudit } from "@/server/audit/log";
import { redeliver } from "@/server/alerts/delivery";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = withRoute({ permission: "admin" }, async ({ params, principal, ip }) => {
  await redeliver(String(params.id));
  await recordAudit({ actor: principal.name, event: "alert-delivery.redeliver", target: String(params.id), outcome: "ok", ip });
  return { ok: true };
});
