import { z } from "zod";
import { createSession, sessionCookie } from "@/server/auth/sessions";
import { setupFirstAdmin, setupNeeded } from "@/server/auth/users";
import { password, username } from "@/server/http/inputs";
import { JsonResponse, withPublicRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withPublicRoute({}, async () => ({ setupNeeded: await setupNeeded() }));

export const POST = withPublicRoute(
  { body: z.object({ username, password }) },
  async ({ body, ip, request }) => {
    const user = await setupFirstAdmin(body.username, body.password, ip);
    const session = await createSession(user.id);
    return new JsonResponse(201, { user }, {
      "set-cookie": sessionCookie(session.token, session.expiresAt, new URL(request.url).protocol === "https:"),
    });
  },
);
