import { queueTest } from "@/server/alerts/delivery";
import { JsonResponse, withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const POST = withRoute({ permission: "admin" }, async ({ params }) => new JsonResponse(202, { deliveryId: await queueTest(String(params.id)) }));
