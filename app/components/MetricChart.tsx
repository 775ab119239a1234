"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useHistory } from "../lib/queries";
import { timeTicks } from "../lib/time-axis";

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
  // A few samples in a long window would draw a line too short to see: mark each one.
  const sparse = points.length <= 30;
  const axis = timeTicks(from, to);
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
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: -10 }}>
              <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
              {/* The axis spans the whole range chosen, so a queue seen for a minute shows as a minute. */}
              <XAxis
                dataKey="at"
                type="number"
                domain={[from, to]}
                ticks={axis.ticks}
                tickFormatter={axis.label}
                stroke="var(--muted)"
                fontSize={11}
              />
              <YAxis stroke="var(--muted)" fontSize={11} allowDecimals={metric.startsWith("rate")} />
              <Tooltip
                labelFormatter={(value) => new Date(Number(value)).toLocaleString()}
                contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)" }}
              />
              <Line type="monotone" dataKey="value" stroke="var(--chart-1)" dot={sparse ? { r: 2 } : false} isAnimationActive={false} connectNulls={false} />
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </div>
  );
}
