import { z } from "zod";
import { createSession, sessionCookie } from "@/server/auth/sessions";
import { checkLogin } from "@/server/auth/users";
import { JsonResponse, withPublicRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = withPublicRoute(
  { body: z.object({ username: z.string().min(1).max(64), password: z.string().min(1).max(200) }) },
  async ({ body, ip, request }) => {
    const user = await checkLogin(body.username, body.password, ip);
    const session = await createSession(user.id);
    return new JsonResponse(200, { user }, {
      "set-cookie": sessionCookie(session.token, session.expiresAt, new URL(request.url).protocol === "https:"),
    });
  },
);
