import { z } from "zod";
import { recordAudit } from "@/server/audit/log";
import { ROLES } from "@/server/auth/permissions";
import { changeRole, removeUser } from "@/server/auth/users";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const PATCH = withRoute({ permission: "admin", body: z.object({ role: z.enum(ROLES) }) }, async ({ params, body, principal, ip }) => {
  const user = await changeRole(String(params.id), body.role);
  await recordAudit({ actor: principal.name, event: "user.role", target: user.username, outcome: "ok", message: `role ${user.role}`, ip });
  return user;
});

export const DELETE = withRoute({ permission: "admin" }, async ({ params, principal, ip }) => {
  const user = await removeUser(String(params.id), principal.userId);
  await recordAudit({ actor: principal.name, event: "user.remove", target: user.username, outcome: "ok", ip });
  return { ok: true };
});
