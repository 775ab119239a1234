import { actionsFor } from "@/server/actions/registry";
import { browsable } from "@/server/brokers/browse";
import { purgeCooldownSeconds } from "@/server/brokers/sqs/cooldown";
import { getQueue } from "@/server/collect/queries";
import { queueIdFromParams } from "@/server/http/params";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async ({ params }) => {
  const queue = getQueue(queueIdFromParams(params));
  return {
    ...queue,
    actions: actionsFor(queue),
    browsable: browsable(queue),
    ...(queue.kind === "sqs" ? { purgeCooldownSeconds: purgeCooldownSeconds(queue.id) } : {}),
  };
});
