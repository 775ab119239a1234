import { recordAudit } from "@/server/audit/log";
import { deleteRule, getRule, ruleInput, updateRule } from "@/server/alerts/rules";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async ({ params }) => getRule(String(params.id)));

export const PUT = withRoute({ permission: "admin", body: ruleInput }, async ({ params, body, principal, ip }) => {
  const rule = await updateRule(String(params.id), body);
  await recordAudit({ actor: principal.name, event: "alert-rule.update", target: rule.id, outcome: "ok", message: rule.name, details: body, ip });
  return rule;
});

export const DELETE = withRoute({ permission: "admin" }, async ({ params, principal, ip }) => {
  await deleteRule(String(params.id));
  await recordAudit({ actor: principal.name, event: "alert-rule.delete", target: String(params.id), outcome: "ok", ip });
  return { ok: true };
});
