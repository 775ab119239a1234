"use client";
// One figure of a queue over the range chosen, from the server's history.
import { useHistory } from "../lib/queries";
import { TimeLinePlot } from "./TimeLinePlot";

const METRIC_LABELS: Record<string, string> = {
  depth: "Depth (messages)",
  lagMessages: "Lag (messages)",
  lagSeconds: "Lag (seconds)",
  rateIn: "In (msg/s)",
  rateOut: "Out (msg/s)",
  dlqDepth: "DLQ depth",
};

export function MetricChart({ queueId, metric, range }: { queueId: string; metric: string; range: string }) {
  const history = useHistory(queueId, metric, range);
  const points = (history.data?.points ?? []).map(([at, value]) => ({ at, value }));
  const reported = points.some((point) => point.value !== null);
  const from = history.data?.from ?? points[0]?.at ?? 0;
  const to = history.data?.to ?? points.at(-1)?.at ?? 0;
  return (
    <div className="card" data-testid={`chart-${metric}`}>
      <div className="title">
        <span>{METRIC_LABELS[metric] ?? metric}</span>
        <span className="small muted">{points.length} points</span>
      </div>
      <div style={{ height: 180 }}>
        {points.length === 0 ? (
          <p className="muted small">No samples yet in this range.</p>
        ) : !reported ? (
          <p className="muted small">This broker does not report this figure for this queue.</p>
        ) : (
          // The axis spans the whole range chosen, so a queue seen for a minute shows as a minute.
          <TimeLinePlot data={points} from={from} to={to} dots={points.length <= 30} allowDecimals={metric.startsWith("rate")} />
        )}
      </div>
    </div>
  );
}
