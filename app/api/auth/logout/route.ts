import { recordAudit } from "@/server/audit/log";
import { SESSION_COOKIE, clearedSessionCookie, deleteSession, readCookie } from "@/server/auth/sessions";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = withRoute({ permission: "read" }, async ({ request, principal, ip }) => {
  const token = readCookie(request.headers.get("cookie"), SESSION_COOKIE);
  if (token) await deleteSession(token);
  await recordAudit({ actor: principal.name, event: "logout", outcome: "ok", ip });
  return new JsonResponse(200, { ok: true }, { "set-cookie": clearedSessionCookie() });
});
