import { recordAudit } from "@/server/audit/log";
import { channelInput, createChannel, listChannels } from "@/server/alerts/rules";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async () => listChannels());

export const POST = withRoute({ permission: "admin", body: channelInput }, async ({ body, principal, ip }) => {
  const channel = await createChannel(body);
  await recordAudit({ actor: principal.name, event: "alert-channel.create", target: channel.id, outcome: "ok", message: `${channel.kind} ${channel.url}`, ip });
  return new JsonResponse(201, channel);
});
