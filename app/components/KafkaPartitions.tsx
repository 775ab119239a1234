"use client";
// A Kafka consumer group on a topic, partition by partition: offsets, lag in records and in
// seconds (and how that was dated), the owning member, and the rule that gave each status.
import type { HotPartition, MemberView, PartitionView, QueueDetail } from "../lib/types";
import { formatCount, formatDuration, formatRate } from "../lib/format";

const DATED_BY: Record<string, string> = {
  record: "timestamp of the record at the committed offset",
  interpolated: "interpolated from end-offset samples",
  "lower-bound": "at least: older than the oldest end-offset sample",
};

export function KafkaPartitions({ queue }: { queue: QueueDetail }) {
  const partitions = (queue.facts.partitions as PartitionView[] | undefined) ?? [];
  const members = (queue.facts.members as MemberView[] | undefined) ?? [];
  const hot = (queue.facts.hotPartitions as HotPartition[] | undefined) ?? [];
  const isDlq = queue.facts.detectedBy !== undefined;
  return (
    <section className="panel" aria-label="Partitions">
      <h2>
        {isDlq ? `DLQ topic ${String(queue.facts.topic)}` : `Group ${String(queue.facts.group)} on ${String(queue.facts.topic)}`}
        {!isDlq && <span className="small muted"> · state {String(queue.facts.groupState)}</span>}
      </h2>
      {isDlq && (
        <p className="small">
          Found by its {queue.facts.detectedBy === "name" ? "name" : "records' headers"}
          {queue.facts.deadLetterOf ? `; dead letters of ${String(queue.facts.deadLetterOf)}` : ""}. Waiting = records past Varal&apos;s group{" "}
          <code>{String(queue.facts.group)}</code>, which commits as it redrives.
        </p>
      )}
      {hot.map((entry) => (
        <p key={`${entry.of}-${entry.partition}`} className="note small">
          Hot partition {entry.partition}: {Math.round(entry.share * 100)}% of the {entry.of === "lag" ? "group's lag" : "topic's traffic"}.
        </p>
      ))}
      <table data-testid="kafka-partitions">
        <thead>
          <tr>
            <th className="num">Partition</th>
            <th className="num">{isDlq ? "Redriven up to" : "Committed"}</th>
            <th className="num">Log start</th>
            <th className="num">Log end</th>
            <th className="num">Lag</th>
            <th className="num">Lag (time)</th>
            <th className="num">In</th>
            {!isDlq && <th>Owner</th>}
            {!isDlq && <th>Status (Burrow&apos;s rules)</th>}
          </tr>
        </thead>
        <tbody>
          {partitions.map((p) => (
            <tr key={p.partition} data-testid="kafka-partition">
              <td className="num">
                {p.partition}
                {p.underReplicated && <div className="small" style={{ color: "var(--warning)" }}>under-replicated</div>}
              </td>
              <td className="num">{p.committed >= 0 ? formatCount(p.committed) : "—"}</td>
              <td className="num">{formatCount(p.logStart)}</td>
              <td className="num">{formatCount(p.logEnd)}</td>
              <td className="num">{formatCount(p.lag)}</td>
              <td className="num" title={p.lagSecondsFrom ? DATED_BY[p.lagSecondsFrom] : undefined}>
                {p.lagSecondsFrom === "lower-bound" ? "≥ " : p.lagSecondsFrom === "interpolated" ? "≈ " : ""}
                {formatDuration(p.lagSeconds)}
              </td>
              <td className="num">{formatRate(p.rateIn)}</td>
              {!isDlq && <td className="small mono">{p.owner ?? "—"}</td>}
              {!isDlq && (
                <td className="small">
                  {p.status ? <strong>{p.status}</strong> : "—"} {p.rule?.replace(/^[A-Z]+: /, "")}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {!isDlq && (
        <p className="small muted">
          Statuses judge a window of recent polls: OK; WARN when lag never decreased; STALL when the committed offset is stuck while a live member owns the partition;
          STOP when it is stuck with no member; REWIND when it went backwards. Lag in time: ≈ interpolated, ≥ a lower bound.
        </p>
      )}
      {members.length > 0 && (
        <>
          <h2 style={{ marginTop: 12 }}>Members</h2>
          <table>
            <thead>
              <tr>
                <th>Client id</th>
                <th>Host</th>
                <th>Partitions</th>
              </tr>
            </thead>
            <tbody>
              {members.map((member) => (
                <tr key={member.memberId}>
                  <td className="mono small">{member.clientId}</td>
                  <td className="mono small">{member.host}</td>
                  <td className="small">{member.partitions.length > 0 ? member.partitions.join(", ") : "none yet (rebalancing)"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
