import { recordAudit } from "@/server/audit/log";
import { createRule, listRules, ruleInput } from "@/server/alerts/rules";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async () => listRules());

export const POST = withRoute({ permission: "admin", body: ruleInput }, async ({ body, principal, ip }) => {
  const rule = await createRule(body);
  await recordAudit({ actor: principal.name, event: "alert-rule.create", target: rule.id, outcome: "ok", message: rule.name, details: body, ip });
  return new JsonResponse(201, rule);
});
