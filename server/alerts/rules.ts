// Alert rules, channels and silences: validation and storage.
import { z } from "zod";
import { db, fromJsonColumn, toJsonColumn } from "../db/client";
import { VaralError } from "../errors";
import { ALERT_OPS, parseDuration, type AlertRule, type Labels } from "./evaluate";
import { ALERT_METRICS, isAlertMetric } from "./series";

const labels = z
  .object({ broker: z.string().max(100), queue: z.string().max(1000), group: z.string().max(255), host: z.string().max(255), segment: z.string().max(4096) })
  .partial()
  .strict();

const duration = z.string().refine((text) => parseDuration(text) !== null, 'a duration such as "30s", "5m", "2h" or "1d"');

export const ruleInput = z.object({
  name: z.string().trim().min(1).max(200),
  metric: z.string().refine(isAlertMetric, `one of ${ALERT_METRICS.join(", ")}`),
  match: labels.default({}),
  op: z.enum(ALERT_OPS),
  threshold: z.number().finite(),
  for: duration.default("0s"),
  /** How long the condition must stay false before the alert resolves. */
  resolveAfter: duration.default("1m"),
  severity: z.enum(["critical", "warning", "info"]).default("warning"),
  channels: z.array(z.string().min(1)).max(20).default([]),
  enabled: z.boolean().default(true),
});
export type RuleInput = z.infer<typeof ruleInput>;

export const channelInput = z.object({
  name: z.string().trim().min(1).max(200),
  kind: z.enum(["webhook", "alertmanager", "slack"]),
  url: z
    .string()
    .url()
    .refine((url) => /^https?:\/\//.test(url), "an http:// or https:// URL"),
  secret: z.string().min(16, "at least 16 characters; whsec_<base64> as Standard Webhooks writes it").max(500).optional(),
});
export type ChannelInput = z.infer<typeof channelInput>;

export const silenceInput = z.object({
  match: labels.refine((value) => Object.keys(value).length > 0, "name at least one label"),
  endsAt: z.string().datetime(),
  comment: z.string().max(500).optional(),
});

type RuleRow = Awaited<ReturnType<ReturnType<typeof db>["alertRule"]["findUniqueOrThrow"]>>;

export interface PublicRule extends AlertRule {
  for: string;
  resolveAfter: string;
  channels: string[];
}

function seconds(text: string): number {
  return parseDuration(text) ?? 0;
}

function formatDuration(totalSeconds: number): string {
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["m", 60]] as const) {
    if (totalSeconds > 0 && totalSeconds % size === 0) return `${totalSeconds / size}${unit}`;
  }
  return `${totalSeconds}s`;
}

export function toRule(row: RuleRow): PublicRule {
  return {
    id: row.id,
    name: row.name,
    metric: row.metric,
    match: fromJsonColumn(row.match) ?? {},
    op: row.op as AlertRule["op"],
    threshold: row.threshold,
    forSeconds: row.forSeconds,
    resolveAfterSeconds: row.resolveAfterSeconds,
    for: formatDuration(row.forSeconds),
    resolveAfter: formatDuration(row.resolveAfterSeconds),
    severity: row.severity as AlertRule["severity"],
    channels: fromJsonColumn<string[]>(row.channels) ?? [],
    enabled: row.enabled,
  };
}

/** The answer about channel ids that are not in the store (400 in a rule, 404 in a path). */
export function noSuchChannel(ids: string[], code: "invalid_input" | "not_found" = "not_found"): VaralError {
  return new VaralError(code, `No alert channel with id ${ids.join(", ")}: see GET /api/alerts/channels.`);
}

async function checkChannels(ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await db().alertChannel.findMany({ where: { id: { in: ids } }, select: { id: true } });
  const missing = ids.filter((id) => !found.some((channel) => channel.id === id));
  if (missing.length > 0) throw noSuchChannel(missing, "invalid_input");
}

function ruleData(input: RuleInput) {
  return {
    name: input.name,
    metric: input.metric,
    match: toJsonColumn(input.match),
    op: input.op,
    threshold: input.threshold,
    forSeconds: seconds(input.for),
    resolveAfterSeconds: seconds(input.resolveAfter),
    severity: input.severity,
    channels: toJsonColumn(input.channels),
    enabled: input.enabled,
  };
}

export async function createRule(input: RuleInput): Promise<PublicRule> {
  await checkChannels(input.channels);
  return toRule(await db().alertRule.create({ data: ruleData(input) }));
}

export async function updateRule(id: string, input: RuleInput): Promise<PublicRule> {
  await checkChannels(input.channels);
  await getRule(id);
  return toRule(await db().alertRule.update({ where: { id }, data: ruleData(input) }));
}

export async function getRule(id: string): Promise<PublicRule> {
  const row = await db().alertRule.findUnique({ where: { id } });
  if (!row) throw new VaralError("not_found", `No alert rule with id ${id}: see GET /api/alerts/rules.`);
  return toRule(row);
}

export async function deleteRule(id: string): Promise<void> {
  await getRule(id);
  await db().$transaction([db().alertState.deleteMany({ where: { ruleId: id } }), db().alertRule.delete({ where: { id } })]);
}

export async function listRules(): Promise<PublicRule[]> {
  return (await db().alertRule.findMany({ orderBy: { createdAt: "asc" } })).map(toRule);
}

export interface PublicChannel {
  id: string;
  name: string;
  kind: string;
  url: string;
  hasSecret: boolean;
}

export async function createChannel(input: ChannelInput): Promise<PublicChannel> {
  if (input.kind === "webhook" && !input.secret) {
    throw new VaralError("invalid_input", "A webhook channel signs what it sends: give a secret (for example whsec_ followed by base64 of 24 random bytes).");
  }
  const row = await db().alertChannel.create({ data: { name: input.name, kind: input.kind, url: input.url, secret: input.secret ?? null } });
  return { id: row.id, name: row.name, kind: row.kind, url: row.url, hasSecret: row.secret !== null };
}

export async function listChannels(): Promise<PublicChannel[]> {
  const rows = await db().alertChannel.findMany({ orderBy: { createdAt: "asc" } });
  return rows.map((row) => ({ id: row.id, name: row.name, kind: row.kind, url: row.url, hasSecret: row.secret !== null }));
}

/** Deletes a channel no rule sends to; its undelivered notifications then go dead. */
export async function deleteChannel(id: string): Promise<void> {
  const channel = await db().alertChannel.findUnique({ where: { id } });
  if (!channel) throw noSuchChannel([id]);
  const users = (await listRules()).filter((rule) => rule.channels.includes(id));
  if (users.length > 0) {
    throw new VaralError("conflict", `Rule(s) ${users.map((rule) => `"${rule.name}"`).join(", ")} send to channel "${channel.name}": take it out of them first.`);
  }
  await db().alertChannel.delete({ where: { id } });
}

export async function createSilence(input: z.infer<typeof silenceInput>, createdBy: string) {
  const endsAt = new Date(input.endsAt);
  if (endsAt.getTime() <= Date.now()) throw new VaralError("invalid_input", "endsAt is in the past: a silence ends in the future.");
  const row = await db().silence.create({ data: { match: toJsonColumn(input.match), endsAt, comment: input.comment ?? null, createdBy } });
  return { id: row.id, match: input.match, endsAt: row.endsAt.toISOString(), comment: row.comment, createdBy };
}

/** The label matches of every silence in force at `now`. */
export async function silenceMatchesInForce(now = Date.now()): Promise<Labels[]> {
  const rows = await db().silence.findMany({ where: { endsAt: { gt: new Date(now) } } });
  return rows.map((row) => fromJsonColumn<Labels>(row.match) ?? {});
}

export async function listSilences() {
  const rows = await db().silence.findMany({ where: { endsAt: { gt: new Date() } }, orderBy: { endsAt: "asc" } });
  return rows.map((row) => ({ id: row.id, match: fromJsonColumn(row.match), endsAt: row.endsAt.toISOString(), comment: row.comment, createdBy: row.createdBy }));
}

/** Ends a silence now: transitions from here on reach the channels again. */
export async function endSilence(id: string): Promise<void> {
  const silence = await db().silence.findUnique({ where: { id } });
  if (!silence || silence.endsAt.getTime() <= Date.now()) throw new VaralError("not_found", `No silence in force with id ${id}: see GET /api/alerts/silences.`);
  await db().silence.update({ where: { id }, data: { endsAt: new Date() } });
}
