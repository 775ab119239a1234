// Starts the alert loop and the delivery worker with the process; one of each per process,
// kept on globalThis like the other background work.
import type { VaralConfig } from "../config/schema";
import { DeliveryWorker } from "./delivery";
import { AlertEngine } from "./engine";

interface Alerts {
  engine: AlertEngine;
  worker: DeliveryWorker;
}

const holder = globalThis as typeof globalThis & { __varalAlerts?: Alerts };

export function startAlerts(config: VaralConfig): Alerts {
  holder.__varalAlerts ??= (() => {
    const engine = new AlertEngine();
    const worker = new DeliveryWorker(config.alerts);
    engine.start(config.alerts.evaluationIntervalMs);
    worker.start();
    return { engine, worker };
  })();
  return holder.__varalAlerts;
}

export async function stopAlerts(): Promise<void> {
  const alerts = holder.__varalAlerts;
  holder.__varalAlerts = undefined;
  await alerts?.engine.stop();
  await alerts?.worker.stop();
}

export function alertsRunning(): Alerts | undefined {
  return holder.__varalAlerts;
}
