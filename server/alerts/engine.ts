// The alert loop: on the leader, evaluate every enabled rule on the current snapshots,
// keep each series' state, and for each transition (not silenced) queue one delivery per
// channel, in the same transaction as the state change, so a transition is notified once.
import { collectorState } from "../collect/state";
import { db, fromJsonColumn, toJsonColumn } from "../db/client";
import { describeError } from "../errors";
import { SeriesIndex, evaluateRule, matchesSilence, type Labels, type SeriesState, type Transition } from "./evaluate";
import { Leadership } from "./leader";
import type { AlertEvent } from "./payloads";
import { silenceMatchesInForce, toRule, type PublicRule } from "./rules";
import { syncHosts } from "../agents/hosts";
import { collectSeries } from "./series";

export class AlertEngine {
  private readonly leadership = new Leadership();
  /** Rule id -> series key -> state, loaded from the store when this process becomes leader. */
  private states = new Map<string, Map<string, SeriesState>>();
  private loaded = false;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  lastError: string | null = null;

  constructor(private readonly baseUrl: () => string | null = () => process.env.VARAL_PUBLIC_URL ?? null) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.cycle(), intervalMs);
    this.timer.unref?.();
    void this.cycle();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
    await this.leadership.release();
  }

  get isLeader(): boolean {
    return this.leadership.isLeader;
  }

  /** One evaluation; overlapping calls share the one under way. */
  cycle(now = Date.now()): Promise<void> {
    this.running ??= this.evaluate(now)
      .catch((error) => {
        this.lastError = describeError(error);
        console.error(`varal: alert evaluation failed: ${this.lastError}`);
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  private async evaluate(now: number): Promise<void> {
    if (!(await this.leadership.check())) {
      this.loaded = false;
      return;
    }
    if (!this.loaded) await this.loadStates();
    const rules = (await db().alertRule.findMany({ where: { enabled: true } })).map(toRule);
    const state = collectorState();
    // Agents report to whichever replica the load balancer picks: read what the others kept.
    await syncHosts();
    const index = new SeriesIndex(collectSeries([...state.brokers.values()], state.history, now));
    const silences = await silenceMatchesInForce(now);
    const changes: Array<{ rule: PublicRule; transition: Transition }> = [];
    const touched = new Map<string, Set<string>>();
    for (const rule of rules) {
      const ruleStates = this.states.get(rule.id) ?? new Map<string, SeriesState>();
      this.states.set(rule.id, ruleStates);
      const before = new Map([...ruleStates].map(([key, value]) => [key, value.state]));
      for (const transition of evaluateRule(rule, index.matching(rule.metric, rule.match), ruleStates, now)) changes.push({ rule, transition });
      // New, changed, and gone back to inactive (no entry any more).
      const changed = new Set([...ruleStates].filter(([key, value]) => before.get(key) !== value.state).map(([key]) => key));
      for (const key of before.keys()) if (!ruleStates.has(key)) changed.add(key);
      if (changed.size > 0) touched.set(rule.id, changed);
    }
    if (touched.size === 0) return;
    await db().$transaction(async (tx) => {
      for (const [ruleId, keys] of touched) {
        for (const key of keys) {
          const entry = this.states.get(ruleId)!.get(key);
          if (!entry) {
            await tx.alertState.deleteMany({ where: { ruleId, seriesKey: key } });
            continue;
          }
          const data = { state: entry.state, since: new Date(entry.since), value: entry.value, labels: toJsonColumn(entry.labels) };
          await tx.alertState.upsert({ where: { ruleId_seriesKey: { ruleId, seriesKey: key } }, create: { ruleId, seriesKey: key, ...data }, update: data });
        }
      }
      for (const { rule, transition } of changes) {
        if (silences.some((match) => matchesSilence(match, transition.labels))) continue;
        const event: AlertEvent = {
          transition,
          ruleName: rule.name,
          metric: rule.metric,
          severity: rule.severity,
          summary: summarise(rule, transition),
          url: this.linkFor(transition.labels),
        };
        for (const channelId of rule.channels) {
          await tx.alertDelivery.create({
            data: { channelId, ruleId: rule.id, event: `alert.${transition.to}`, payload: toJsonColumn(event), state: "pending" },
          });
        }
      }
    });
  }

  private async loadStates(): Promise<void> {
    this.states = new Map();
    for (const row of await db().alertState.findMany({ where: { state: { not: "inactive" } } })) {
      const rule = this.states.get(row.ruleId) ?? new Map<string, SeriesState>();
      rule.set(row.seriesKey, { state: row.state as SeriesState["state"], since: row.since.getTime(), value: row.value, labels: fromJsonColumn<Labels>(row.labels) ?? {} });
      this.states.set(row.ruleId, rule);
    }
    this.loaded = true;
  }

  private linkFor(labels: Labels): string | null {
    const base = this.baseUrl();
    if (base && labels.host) return `${base.replace(/\/+$/, "")}/hosts/${encodeURIComponent(labels.host)}`;
    if (!base || !labels.broker || !labels.queue) return base;
    return `${base.replace(/\/+$/, "")}/queues/${encodeURIComponent(labels.broker)}/${encodeURIComponent(labels.queue)}`;
  }
}

function summarise(rule: PublicRule, transition: Transition): string {
  const where = [transition.labels.broker ?? transition.labels.host, transition.labels.queue ?? transition.labels.segment].filter(Boolean).join("/") || "Varal";
  const value = transition.value === null ? "no value" : Number.isInteger(transition.value) ? String(transition.value) : transition.value.toFixed(2);
  return transition.to === "firing"
    ? `${where}: ${rule.metric} is ${value} (${rule.op} ${rule.threshold}${rule.forSeconds ? ` for ${rule.for}` : ""})`
    : `${where}: ${rule.metric} is back to ${value} (resolved)`;
}
