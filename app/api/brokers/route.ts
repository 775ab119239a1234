import { listBrokers } from "@/server/collect/queries";
import { withRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = withRoute({ permission: "read" }, async () => listBrokers());
