import { z } from "zod";
import { recordAudit } from "@/server/audit/log";
import { ROLES } from "@/server/auth/permissions";
import { createUser, listUsers } from "@/server/auth/users";
import { password, username } from "@/server/http/inputs";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "admin" }, async () => listUsers());

export const POST = withRoute(
  { permission: "admin", body: z.object({ username, password, role: z.enum(ROLES) }) },
  async ({ body, principal, ip }) => {
    const user = await createUser(body.username, body.password, body.role);
    await recordAudit({ actor: principal.name, event: "user.create", target: user.username, outcome: "ok", message: `role ${user.role}`, ip });
    return new JsonResponse(201, user);
  },
);
