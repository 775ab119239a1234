import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async ({ principal }) => ({
  name: principal.name,
  kind: principal.kind,
  role: principal.role,
}));
