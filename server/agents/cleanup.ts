// Segment cleanup: an operator's action carried out by the host's agent. The action issues
// a command bound to the segment's inode, the agent receives it with the reply to its next
// report, removes the segment by the safe procedure of RING.md (or refuses), and says what
// happened in the report after; the action ends with that outcome.
import { sleep } from "../actions/pace";
import { db } from "../db/client";
import { VaralError } from "../errors";
import type { DryRunResult } from "../actions/types";
import { getHost } from "./hosts";
import type { AgentReport } from "./report";

export interface SegmentTarget {
  host: string;
  segment: string;
  inode: number;
}

/** How long an action waits for the agent's outcome, in the host's report intervals. */
const WAIT_INTERVALS = 12;
const CHECK_MS = 250;

async function orphanOf(target: SegmentTarget) {
  const host = await getHost(target.host);
  if (host.status === "silent") {
    throw new VaralError("unavailable", `The agent on ${target.host} is silent (${host.statusReason}): a cleanup waits for an agent that reports.`);
  }
  const orphan = host.report.orphans.find((entry) => entry.segment === target.segment && entry.inode === target.inode);
  if (!orphan) {
    const ring = host.report.rings.find((entry) => entry.segment === target.segment);
    const why = !ring
      ? `there is no ring "${target.segment}" in its last report`
      : ring.inode !== target.inode
        ? `"${target.segment}" is now inode ${ring.inode}, not ${target.inode}: it was recreated`
        : `"${target.segment}" is not an orphan (producer ${ring.producer.state}, consumer ${ring.consumer.state})`;
    throw new VaralError("conflict", `Host ${target.host}: ${why}. Only orphans listed in the host's report can be cleaned up.`);
  }
  return { host, orphan };
}

export async function segmentCleanupDryRun(target: SegmentTarget): Promise<DryRunResult> {
  const { orphan } = await orphanOf(target);
  return {
    wouldAffect: 1,
    sample: [{ segment: orphan.segment, inode: orphan.inode, sizeBytes: orphan.sizeBytes ?? null, reason: orphan.reason, orphanForSeconds: orphan.sinceSeconds }],
    warnings: [
      `The agent on ${target.host} removes ${target.segment} only if it is still the orphan of inode ${target.inode}: it takes the ring's gate lock, checks /proc again, quarantines it for one scan, then unlinks it.`,
      "A segment that any live process maps is never removed; the agent refuses and says why.",
    ],
  };
}

/** The commands a host's agent gets in the reply to its report: every one still pending. */
export async function pendingCommands(host: string) {
  const rows = await db().agentCommand.findMany({ where: { host, state: "pending" }, orderBy: { createdAt: "asc" } });
  return rows.map((row) => ({ id: row.id, kind: row.kind, segment: row.segment, inode: Number(row.inode), expectedSize: Number(row.sizeBytes) }));
}

/** Outcomes from a report close their commands; "quarantined" is a step, not an outcome. */
export async function recordCommandResults(report: AgentReport): Promise<void> {
  for (const result of report.commandResults) {
    if (result.outcome === "quarantined") continue;
    await db().agentCommand.updateMany({
      where: { id: result.id, host: report.host, state: "pending" },
      data: { state: "done", outcome: result.outcome, message: result.message, finishedAt: new Date() },
    });
  }
}

/** The action's job: issue the command, then wait for the agent's outcome. */
export async function runSegmentCleanup(actionId: string, target: SegmentTarget, signal: AbortSignal, progress: (done: number, total: number) => Promise<void>): Promise<unknown> {
  const { host, orphan } = await orphanOf(target);
  await progress(0, 1);
  await db().agentCommand.upsert({
    where: { id: actionId },
    create: { id: actionId, host: target.host, kind: "cleanup", segment: target.segment, inode: String(target.inode), sizeBytes: String(orphan.sizeBytes ?? 0), state: "pending" },
    update: {},
  });
  const deadline = Date.now() + WAIT_INTERVALS * host.intervalSeconds * 1000;
  try {
    while (Date.now() < deadline) {
      const command = await db().agentCommand.findUnique({ where: { id: actionId } });
      if (command?.state === "done") {
        if (command.outcome !== "removed") throw new Error(`The agent on ${target.host} did not remove ${target.segment}: ${command.message ?? command.outcome}`);
        await progress(1, 1);
        return { removed: target.segment, inode: target.inode, message: command.message };
      }
      await sleep(CHECK_MS, signal);
    }
    throw new Error(`The agent on ${target.host} gave no outcome within ${WAIT_INTERVALS} report intervals: is it running? The command was withdrawn.`);
  } finally {
    // Withdrawn unless the agent answered: a later agent start must not act on it.
    await db().agentCommand.updateMany({ where: { id: actionId, state: "pending" }, data: { state: "cancelled", finishedAt: new Date() } });
  }
}
