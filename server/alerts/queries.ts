// Firing and recently resolved alerts, for the alerts page.
import { db, fromJsonColumn } from "../db/client";
import { matchesSilence, type Labels } from "./evaluate";
import { silenceMatchesInForce } from "./rules";

const RECENT_MS = 24 * 3600_000;

export async function listActiveAlerts() {
  const rows = await db().alertState.findMany({
    where: { OR: [{ state: { in: ["firing", "pending"] } }, { state: "resolved", since: { gt: new Date(Date.now() - RECENT_MS) } }] },
    orderBy: { since: "desc" },
    take: 500,
  });
  const rules = new Map((await db().alertRule.findMany()).map((rule) => [rule.id, rule]));
  const silences = await silenceMatchesInForce();
  return rows.map((row) => {
    const labels = fromJsonColumn<Labels>(row.labels) ?? {};
    return {
      ruleId: row.ruleId,
      rule: rules.get(row.ruleId)?.name ?? null,
      severity: rules.get(row.ruleId)?.severity ?? null,
      metric: rules.get(row.ruleId)?.metric ?? null,
      labels,
      state: row.state,
      // A silenced alert still shows: its notifications are held, not the condition.
      silenced: silences.some((match) => matchesSilence(match, labels)),
      since: row.since.toISOString(),
      value: row.value,
    };
  });
}
