// Hosts and their rings: each agent report kept (the last one whole, in the store, so every
// replica and a restart see it) and an hour of each ring's figures in memory for charts.
import { db } from "../db/client";
import { VaralError } from "../errors";
import { kernelFindings, type KernelFinding } from "./kernel";
import type { AgentReport } from "./report";

/** An agent silent for this many of its intervals is reported silent. */
export const SILENT_INTERVALS = 3;
const HISTORY_POINTS = 720;

export type HostStatus = "ok" | "degraded" | "silent";

export interface HostSummary {
  host: string;
  agentVersion: string;
  lastReportAt: string;
  intervalSeconds: number;
  status: HostStatus;
  statusReason: string | null;
  ringCount: number;
  orphanCount: number;
  foreignCount: number;
  kernelFindings: KernelFinding[];
}

export interface HostDetail extends HostSummary {
  report: AgentReport;
  history: Record<string, { occupancyRatio: Array<[number, number]>; latencyP99Ms: Array<[number, number]> }>;
}

interface HostEntry {
  lastReportAt: Date;
  report: AgentReport;
}

const state = globalThis as typeof globalThis & {
  __varalHosts?: Map<string, HostEntry>;
  __varalRingHistory?: Map<string, { occupancyRatio: Array<[number, number]>; latencyP99Ms: Array<[number, number]> }>;
};

function hosts(): Map<string, HostEntry> {
  state.__varalHosts ??= new Map();
  return state.__varalHosts;
}

function ringHistory() {
  state.__varalRingHistory ??= new Map();
  return state.__varalRingHistory;
}

function push(points: Array<[number, number]>, at: number, value: number): void {
  points.push([at, value]);
  if (points.length > HISTORY_POINTS) points.splice(0, points.length - HISTORY_POINTS);
}

/** Keeps a report: in the store for every replica, in memory for this one's charts. */
export async function recordReport(report: AgentReport, receivedAt = new Date()): Promise<void> {
  const json = JSON.stringify(report);
  await db().agentHost.upsert({
    where: { host: report.host },
    create: { host: report.host, agentVersion: report.agentVersion, bootId: report.bootId, intervalSeconds: report.intervalSeconds, lastReportAt: receivedAt, report: json },
    update: { agentVersion: report.agentVersion, bootId: report.bootId, intervalSeconds: report.intervalSeconds, lastReportAt: receivedAt, report: json },
  });
  hosts().set(report.host, { lastReportAt: receivedAt, report });
  const at = receivedAt.getTime();
  for (const ring of report.rings) {
    const key = `${report.host}\u0000${ring.segment}`;
    const series = ringHistory().get(key) ?? { occupancyRatio: [], latencyP99Ms: [] };
    push(series.occupancyRatio, at, ring.occupancyRatio);
    push(series.latencyP99Ms, at, ring.latency.p99Ns / 1e6);
    ringHistory().set(key, series);
  }
}

/** Reads reports other replicas received (and those from before a restart). */
export async function syncHosts(): Promise<void> {
  // Reports are large: read one only when it is newer than the one in memory.
  const rows = await db().agentHost.findMany({ select: { host: true, lastReportAt: true } });
  for (const row of rows) {
    const known = hosts().get(row.host);
    if (known && known.lastReportAt >= row.lastReportAt) continue;
    const full = await db().agentHost.findUnique({ where: { host: row.host } });
    if (!full) continue;
    try {
      hosts().set(row.host, { lastReportAt: full.lastReportAt, report: JSON.parse(full.report) as AgentReport });
    } catch {
      // A row this version cannot read waits for the host's next report.
    }
  }
}

function summarise(host: string, entry: HostEntry, now: number): HostSummary {
  const { report } = entry;
  const silentFor = (now - entry.lastReportAt.getTime()) / 1000;
  const silent = silentFor > SILENT_INTERVALS * report.intervalSeconds;
  const troubled = report.rings.filter((ring) => ring.corrupt || ring.producer.state === "dead" || ring.consumer.state === "dead" || ring.consumer.state === "stalled");
  let status: HostStatus = "ok";
  let statusReason: string | null = null;
  if (silent) {
    status = "silent";
    statusReason = `no report for ${Math.round(silentFor)} s (more than ${SILENT_INTERVALS} intervals of ${report.intervalSeconds} s): is varal-agent running, and can it reach the dashboard?`;
  } else if (report.error) {
    status = "degraded";
    statusReason = report.error;
  } else if (report.orphans.length > 0 || troubled.length > 0) {
    status = "degraded";
    statusReason = [
      report.orphans.length > 0 ? `${report.orphans.length} orphaned segment(s)` : null,
      troubled.length > 0 ? `${troubled.length} ring(s) with a dead or stalled participant, or corrupt` : null,
    ]
      .filter(Boolean)
      .join("; ");
  }
  return {
    host,
    agentVersion: report.agentVersion,
    lastReportAt: entry.lastReportAt.toISOString(),
    intervalSeconds: report.intervalSeconds,
    status,
    statusReason,
    ringCount: report.rings.length,
    orphanCount: report.orphans.length,
    foreignCount: report.foreign.length,
    kernelFindings: kernelFindings(report.kernel),
  };
}

export async function listHosts(now = Date.now()): Promise<HostSummary[]> {
  await syncHosts();
  return [...hosts()].map(([host, entry]) => summarise(host, entry, now)).sort((a, b) => a.host.localeCompare(b.host));
}

export async function getHost(host: string, now = Date.now()): Promise<HostDetail> {
  await syncHosts();
  const entry = hosts().get(host);
  if (!entry) throw new VaralError("not_found", `No agent has reported as host "${host}": see GET /api/hosts.`);
  const history: HostDetail["history"] = {};
  for (const ring of entry.report.rings) {
    const series = ringHistory().get(`${host}\u0000${ring.segment}`);
    if (series) history[ring.segment] = series;
  }
  return { ...summarise(host, entry, now), report: entry.report, history };
}

/** The hosts as this replica knows them now, for alert rules (synchronous, from memory). */
export function knownHosts(now = Date.now()): Array<{ summary: HostSummary; report: AgentReport }> {
  return [...hosts()].map(([host, entry]) => ({ summary: summarise(host, entry, now), report: entry.report }));
}

/** Forgets a host (a decommissioned machine): its report, its charts, its pending commands. */
export async function forgetHost(host: string): Promise<void> {
  const deleted = await db().agentHost.deleteMany({ where: { host } });
  if (deleted.count === 0) throw new VaralError("not_found", `No agent has reported as host "${host}": see GET /api/hosts.`);
  await db().agentCommand.updateMany({ where: { host, state: "pending" }, data: { state: "cancelled", finishedAt: new Date() } });
  hosts().delete(host);
  for (const key of ringHistory().keys()) if (key.startsWith(`${host}\u0000`)) ringHistory().delete(key);
}
