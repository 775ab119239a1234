import { z } from "zod";
import { recordAudit } from "@/server/audit/log";
import { createToken, listTokens } from "@/server/auth/tokens";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "admin" }, async () => listTokens());

export const POST = withRoute(
  {
    permission: "admin",
    body: z.object({ name: z.string().trim().min(1).max(100), kind: z.enum(["user", "agent"]).default("user") }),
  },
  async ({ body, principal, ip }) => {
    const { token, info } = await createToken(body.name, body.kind, principal.userId);
    await recordAudit({ actor: principal.name, event: "token.create", target: info.name, outcome: "ok", message: `${info.kind} token`, ip });
    // The token itself is shown this once; only its hash is kept.
    return new JsonResponse(201, { ...info, token });
  },
);
