import { pendingCommands, recordCommandResults } from "@/server/agents/cleanup";
import { recordReport } from "@/server/agents/hosts";
import { reportSchema } from "@/server/agents/report";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

// An agent's report; the reply carries the cleanup commands still waiting for it.
export const POST = withRoute({ permission: "report", body: reportSchema, maxBodyBytes: 32_000_000 }, async ({ body }) => {
  await recordReport(body);
  await recordCommandResults(body);
  return { commands: await pendingCommands(body.host) };
});
