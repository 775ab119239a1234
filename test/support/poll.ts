// Polls every broker now, again and again, until a check on the snapshots holds. A check
// that throws (a queue not listed yet) counts as not yet.
import { pollAllNow } from "@/server/collect/collector";
import { waitFor } from "./wait";

export async function pollUntil(check: () => boolean, what: string, { timeoutMs = 30_000, intervalMs = 300 } = {}): Promise<void> {
  await waitFor(async () => {
    await pollAllNow();
    try {
      return check();
    } catch {
      return false;
    }
  }, { what, timeoutMs, intervalMs });
}
