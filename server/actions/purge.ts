// What every broker's purge shares: the typed confirmation that guards it.
import { z } from "zod";
import { VaralError } from "../errors";
import type { QueueActionTarget } from "./types";

export const purgeParams = z.object({ confirm: z.string().optional() });
export type PurgeParams = z.infer<typeof purgeParams>;

/** A purge runs only when the operator typed the queue's name; a dry run needs no typing. */
export function requireTypedName(target: QueueActionTarget, params: PurgeParams, mode: "dry-run" | "run"): void {
  if (mode === "run" && params.confirm !== target.queue.name) {
    throw new VaralError("invalid_input", `To purge, type the queue's name exactly: params.confirm must be "${target.queue.name}".`);
  }
}
