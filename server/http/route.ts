// The one wrapper every route handler goes through: authenticate, check the Origin of
// cookie mutations, authorise, parse query and body with zod, run, and shape errors.
// It uses only the web's Request and Response, so it needs nothing from Next.js.
import { z } from "zod";
import { recordAudit } from "../audit/log";
import { authenticate, clientAddress, sameOrigin } from "../auth/authenticate";
import { can, type Permission, type Principal } from "../auth/permissions";
import { VaralError, isVaralError } from "../errors";

type Params = Record<string, string | string[] | undefined>;

export interface RouteContext<Q, B> {
  request: Request;
  principal: Principal | null;
  query: Q;
  body: B;
  params: Params;
  ip: string;
}

interface RouteOptions<QS extends z.ZodType | undefined, BS extends z.ZodType | undefined> {
  /** "public" skips authentication (health, setup, login). */
  permission: Permission | "public";
  query?: QS;
  body?: BS;
  /** Largest accepted body in bytes. */
  maxBodyBytes?: number;
}

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** A handler may return plain data (sent as 200 JSON) or a full Response. */
export class JsonResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

type RouteHandler = (request: Request, context: { params: Promise<Params> }) => Promise<Response>;

/** A route for signed-in callers with the given permission. */
export function withRoute<QS extends z.ZodType | undefined = undefined, BS extends z.ZodType | undefined = undefined>(
  options: RouteOptions<QS, BS> & { permission: Permission },
  handler: (ctx: RouteContext<Infer<QS>, Infer<BS>> & { principal: Principal }) => Promise<unknown>,
): RouteHandler {
  return route(options, handler as (ctx: RouteContext<Infer<QS>, Infer<BS>>) => Promise<unknown>);
}

/** A route open to anyone (health, setup, login); the caller is still identified if signed in. */
export function withPublicRoute<QS extends z.ZodType | undefined = undefined, BS extends z.ZodType | undefined = undefined>(
  options: Omit<RouteOptions<QS, BS>, "permission">,
  handler: (ctx: RouteContext<Infer<QS>, Infer<BS>>) => Promise<unknown>,
): RouteHandler {
  return route({ ...options, permission: "public" }, handler);
}

function route<QS extends z.ZodType | undefined, BS extends z.ZodType | undefined>(
  options: RouteOptions<QS, BS>,
  handler: (ctx: RouteContext<Infer<QS>, Infer<BS>>) => Promise<unknown>,
): RouteHandler {
  return async (request: Request, context: { params: Promise<Params> }): Promise<Response> => {
    try {
      const ip = clientAddress(request);
      const principal = options.permission === "public" ? await authenticate(request) : await requirePrincipal(request);
      const mutating = MUTATING.has(request.method);
      if (principal?.viaCookie && mutating && !sameOrigin(request)) {
        throw new VaralError("forbidden", "This request did not come from Varal's own pages (Origin header missing or foreign).");
      }
      if (options.permission !== "public" && principal && !can(principal, options.permission)) {
        if (mutating) {
          await recordAudit({
            actor: principal.name,
            event: `${request.method} ${new URL(request.url).pathname}`,
            outcome: "refused",
            message: `needs permission "${options.permission}", role is ${principal.role ?? principal.kind}`,
            ip,
          });
        }
        throw new VaralError(
          "forbidden",
          `Your role (${principal.role ?? principal.kind}) may not do this: it needs ${describePermission(options.permission)}.`,
        );
      }
      const query = options.query ? parseInput(options.query, Object.fromEntries(new URL(request.url).searchParams), "query") : undefined;
      const body = options.body ? parseInput(options.body, await readJson(request, options.maxBodyBytes ?? 1_000_000), "body") : undefined;
      const params = await context.params;
      const result = await handler({ request, principal, query: query as Infer<QS>, body: body as Infer<BS>, params, ip });
      if (result instanceof Response) return result;
      if (result instanceof JsonResponse) return Response.json(result.body, { status: result.status, headers: result.headers });
      return Response.json(result ?? null);
    } catch (error) {
      return errorResponse(error);
    }
  };
}

function describePermission(permission: Permission | "public"): string {
  switch (permission) {
    case "act":
      return "the operator or admin role";
    case "admin":
      return "the admin role";
    case "report":
      return "an agent token";
    default:
      return "a signed-in user";
  }
}

async function requirePrincipal(request: Request): Promise<Principal> {
  const principal = await authenticate(request);
  if (!principal) {
    throw new VaralError("unauthenticated", "Sign in first, or send Authorization: Bearer <token> with a valid API token.");
  }
  return principal;
}

function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: "query" | "body"): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const summary = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join(".") || where}: ${issue.message}`)
      .join("; ");
    throw new VaralError("invalid_input", `Invalid ${where}: ${summary}.`, result.error.issues);
  }
  return result.data;
}

async function readJson(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new VaralError("payload_too_large", `Request body over ${maxBytes} bytes.`);
  const text = await request.text();
  if (text.length > maxBytes) throw new VaralError("payload_too_large", `Request body over ${maxBytes} bytes.`);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new VaralError("invalid_input", "The request body is not valid JSON.");
  }
}

export function errorResponse(error: unknown): Response {
  if (isVaralError(error)) return Response.json(error.toJSON(), { status: error.status, headers: error.headers });
  console.error("varal: unexpected error in a route:", error);
  return Response.json(
    { error: { code: "internal", message: "Internal error: the server log has the details." } },
    { status: 500 },
  );
}
