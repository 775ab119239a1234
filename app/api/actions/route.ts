import { z } from "zod";
import { listActions, requestAction } from "@/server/actions/service";
import { ACTION_KINDS, ACTION_STATES } from "@/server/actions/types";
import { cursor, limit } from "@/server/http/inputs";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute(
  { permission: "read", query: z.object({ state: z.enum(ACTION_STATES).optional(), limit: limit(200, 50), cursor }) },
  async ({ query }) => listActions(query),
);

const body = z.object({
  kind: z.enum(ACTION_KINDS),
  target: z.object({
    queue: z.string().min(3).max(1000).optional(),
    host: z.string().max(255).optional(),
    segment: z.string().max(4096).optional(),
    inode: z.number().int().nonnegative().optional(),
  }),
  params: z.record(z.string(), z.unknown()).default({}),
  dryRun: z.boolean().default(false),
  idempotencyKey: z.string().min(8, "at least 8 characters; a UUID is a good key").max(200),
});

// "read" lets viewers reach the action service, which refuses and audits them: a refused
// attempt is part of the audit trail.
export const POST = withRoute({ permission: "read", body }, async ({ body, principal, ip }) => {
  const outcome = await requestAction(principal, body, ip);
  if ("dryRun" in outcome) return outcome.dryRun;
  return new JsonResponse(outcome.created ? 202 : 200, outcome.action);
});
