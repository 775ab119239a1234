// Which broker can carry out which action. Each broker's folder registers its handlers
// in server/actions/handlers.ts; nothing is offered in the UI that is not registered here.
import type { QueueSnapshot } from "../collect/snapshot";
import type { BrokerKind } from "../config/schema";
import type { ActionKind, QueueActionHandler } from "./types";

const holder = globalThis as typeof globalThis & { __varalActionHandlers?: Map<string, QueueActionHandler<never>> };

function handlers(): Map<string, QueueActionHandler<never>> {
  holder.__varalActionHandlers ??= new Map();
  return holder.__varalActionHandlers;
}

export function registerActionHandler<P>(handler: QueueActionHandler<P>): void {
  handlers().set(`${handler.brokerKind}:${handler.kind}`, handler as unknown as QueueActionHandler<never>);
}

export function unregisterActionHandler(brokerKind: BrokerKind, kind: ActionKind): void {
  handlers().delete(`${brokerKind}:${kind}`);
}

export function findActionHandler(brokerKind: BrokerKind, kind: ActionKind): QueueActionHandler<unknown> | undefined {
  return handlers().get(`${brokerKind}:${kind}`) as QueueActionHandler<unknown> | undefined;
}

/** The actions that apply to this queue, in a stable order. */
export function actionsFor(queue: QueueSnapshot): ActionKind[] {
  return [...handlers().values()]
    .filter((handler) => handler.brokerKind === queue.kind && (handler.appliesTo?.(queue) ?? true))
    .map((handler) => handler.kind);
}
