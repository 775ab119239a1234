"use client";

import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { useHistory } from "../lib/queries";

const METRIC_LABELS: Record<string, string> = {
  depth: "Depth (messages)",
  lagMessages: "Lag (messages)",
  lagSeconds: "Lag (seconds)",
  rateIn: "In (msg/s)",
  rateOut: "Out (msg/s)",
  dlqDepth: "DLQ depth",
};

function timeLabel(ms: number, withSeconds: boolean): string {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", ...(withSeconds ? { second: "2-digit" } : {}) });
}

export function MetricChart({ queueId, metric, range }: { queueId: string; metric: string; range: string }) {
  const history = useHistory(queueId, metric, range);
  const points = (history.data?.points ?? []).map(([at, value]) => ({ at, value }));
  const reported = points.some((point) => point.value !== null);
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
              <XAxis dataKey="at" type="number" domain={["dataMin", "dataMax"]} tickFormatter={(ms: number) => timeLabel(ms, range === "15m")} stroke="var(--muted)" fontSize={11} />
              <YAxis stroke="var(--muted)" fontSize={11} allowDecimals={metric.startsWith("rate")} />
              <Tooltip
                labelFormatter={(value) => new Date(Number(value)).toLocaleString()}
                contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)" }}
              />
              <Line type="monotone" dataKey="value" stroke="var(--chart-1)" dot={false} isAnimationActive={false} connectNulls={false} />
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </div>
  );
}
