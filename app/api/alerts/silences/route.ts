import { recordAudit } from "@/server/audit/log";
import { createSilence, listSilences, silenceInput } from "@/server/alerts/rules";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async () => listSilences());

export const POST = withRoute({ permission: "admin", body: silenceInput }, async ({ body, principal, ip }) => {
  const silence = await createSilence(body, principal.name);
  await recordAudit({ actor: principal.name, event: "silence.create", target: silence.id, outcome: "ok", details: body, ip });
  return new JsonResponse(201, silence);
});
