// Alerts benchmark: one evaluation cycle of 1,000 rules over 10,000 series, and the rate
// of delivering 10,000 notifications to a local receiver through the outbox.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { DeliveryWorker } from "../../server/alerts/delivery";
import { SeriesIndex, evaluateRule, seriesKey, type AlertRule, type Series, type SeriesState } from "../../server/alerts/evaluate";
import type { AlertEvent } from "../../server/alerts/payloads";
import { db, disconnectDb, toJsonColumn } from "../../server/db/client";
import { startReceiver } from "../support/webhook-receiver";
import { median, printTable, writeResults } from "./stats";

const RULES = 1_000;
const SERIES = 10_000;
const DELIVERIES = Number(process.env.BENCH_ALERT_DELIVERIES ?? 10_000);

/** `overShare`: the share of series above the rules' threshold. */
function workload(overShare: number): { rules: AlertRule[]; index: SeriesIndex } {
  const series: Series[] = Array.from({ length: SERIES }, (_, i) => {
    const labels = { broker: `b${i % 10}`, queue: `q${i}` };
    return { key: seriesKey(labels.broker, labels.queue), labels, value: (i % 1000) / 1000 < overShare ? 1000 : 0 };
  });
  // A mix like a real team's: a tenth watch everything, four tenths a broker, half one queue.
  const rules: AlertRule[] = Array.from({ length: RULES }, (_, i) => ({
    id: `r${i}`,
    name: `rule ${i}`,
    metric: "lagSeconds",
    match: i % 10 === 0 ? {} : i % 10 < 5 ? { broker: `b${i % 10}` } : { broker: `b${i % 10}`, queue: `q${(i * 7) % SERIES}` },
    op: ">",
    threshold: 500,
    forSeconds: 60,
    resolveAfterSeconds: 60,
    severity: "warning",
    enabled: true,
  }));
  return { rules, index: new SeriesIndex(new Map([["lagSeconds", series]])) };
}

export async function runAlertsBenchmark(): Promise<void> {
  console.log(`alerts benchmark: ${RULES} rules over ${SERIES} series; ${DELIVERIES} deliveries to a local receiver\n`);
  const scenarios = [
    { name: "normal: 1% of series over threshold", overShare: 0.01 },
    { name: "storm: 50% of series over threshold", overShare: 0.5 },
  ].map(({ name, overShare }) => {
    const { rules, index } = workload(overShare);
    const states = new Map<string, Map<string, SeriesState>>();
    const cycles: number[] = [];
    let checks = 0;
    let live = 0;
    for (let cycle = 0; cycle < 7; cycle++) {
      const started = performance.now();
      checks = 0;
      for (const rule of rules) {
        const ruleStates = states.get(rule.id) ?? new Map<string, SeriesState>();
        states.set(rule.id, ruleStates);
        const matching = index.matching(rule.metric, rule.match);
        checks += matching.length;
        evaluateRule(rule, matching, ruleStates, cycle * 5_000);
      }
      cycles.push(performance.now() - started);
    }
    for (const ruleStates of states.values()) live += ruleStates.size;
    return { scenario: name, "rule-series checks": checks, "live alerts": live, "median ms per cycle": Number(median(cycles).toFixed(1)) };
  });
  printTable(scenarios);
  console.log("(target: under 100 ms per cycle)\n");

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "varal-bench-alerts-"));
  process.env.DATABASE_URL = `file:${path.join(scratch, "alerts.db")}`;
  execFileSync("npx", ["tsx", "scripts/db.ts", "migrate"], { stdio: "pipe", env: process.env });
  const receiver = await startReceiver();
  try {
    const channel = await db().alertChannel.create({ data: { name: "bench", kind: "webhook", url: receiver.url, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" } });
    const event: AlertEvent = {
      transition: { ruleId: "r", seriesKey: "k", labels: { broker: "b", queue: "q" }, from: "pending", to: "firing", value: 1, at: Date.now() },
      ruleName: "bench",
      metric: "depth",
      severity: "warning",
      summary: "bench",
      url: null,
    };
    const payload = toJsonColumn(event);
    for (let i = 0; i < DELIVERIES; i += 500) {
      await db().alertDelivery.createMany({ data: Array.from({ length: Math.min(500, DELIVERIES - i) }, () => ({ channelId: channel.id, event: "alert.firing", payload, state: "pending" })) });
    }
    const worker = new DeliveryWorker({ retryBaseMs: 1000, retryMaxMs: 10_000, maxAttempts: 3, timeoutMs: 5_000 });
    const started = performance.now();
    while ((await worker.runOnce()) > 0);
    const seconds = (performance.now() - started) / 1000;
    const delivered = await db().alertDelivery.count({ where: { state: "delivered" } });
    printTable([{ deliveries: delivered, received: receiver.received.length, seconds: seconds.toFixed(1), "per second": Math.round(delivered / seconds) }]);
    console.log(
      `results: ${writeResults("alerts", {
        evaluation: { rules: RULES, series: SERIES, scenarios },
        delivery: { deliveries: delivered, seconds, perSecond: delivered / seconds },
      })}`,
    );
  } finally {
    await receiver.close();
    await disconnectDb();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
