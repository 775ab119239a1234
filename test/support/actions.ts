// Waits for a background action job to end, whatever its outcome.
import { getAction } from "@/server/actions/service";
import type { ActionRecord } from "@/server/actions/types";
import { waitFor } from "./wait";

export function actionEnded(id: string): Promise<ActionRecord> {
  return waitFor(async () => {
    const action = await getAction(id);
    return ["succeeded", "failed", "cancelled"].includes(action.state) ? action : null;
  }, { what: `action ${id} to end`, timeoutMs: 60_000 });
}
