// Starts everything that runs in the background of a Varal server: the poll loops and the
// actions runner. Called once per process from instrumentation.ts.
import { openDb } from "./db/client";
import { registerBuiltInActions } from "./actions/handlers";
import { startAlerts, stopAlerts } from "./alerts/runtime";
import { actionRunner } from "./actions/runner";
import { startCollectors, stopCollectors } from "./collect/collector";
import { loadConfig } from "./config/load";

const holder = globalThis as typeof globalThis & { __varalStarted?: { at: number; configFile: string | null } };

export async function startVaral(): Promise<void> {
  if (holder.__varalStarted) return;
  const { config, file } = loadConfig();
  holder.__varalStarted = { at: Date.now(), configFile: file };
  registerBuiltInActions();
  await openDb();
  await startCollectors(config);
  await actionRunner().start();
  startAlerts(config);
  console.log(
    `varal: watching ${config.brokers.length} broker(s) from ${file ?? "the built-in local defaults"}: ` +
      config.brokers.map((broker) => `${broker.name} (${broker.kind})`).join(", "),
  );
}

export async function stopVaral(): Promise<void> {
  await stopAlerts();
  await actionRunner().stop();
  await stopCollectors();
  holder.__varalStarted = undefined;
}

export function startedAt(): number {
  return holder.__varalStarted?.at ?? Date.now();
}
