import { recordAudit } from "@/server/audit/log";
import { endSilence } from "@/server/alerts/rules";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

/** Ends the silence now (it stays in the audit log). */
export const DELETE = withRoute({ permission: "admin" }, async ({ params, principal, ip }) => {
  await endSilence(String(params.id));
  await recordAudit({ actor: principal.name, event: "silence.end", target: String(params.id), outcome: "ok", ip });
  return { ok: true };
});
