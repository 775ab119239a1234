"use client";
// A small line chart of points already in hand (a host's ring figures), in the style of MetricChart.
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { timeTicks } from "../lib/time-axis";

export function SeriesChart({ title, points, testId }: { title: string; points: Array<[number, number]>; testId?: string }) {
  const data = points.map(([at, value]) => ({ at, value }));
  const from = data[0]?.at ?? 0;
  const to = data.at(-1)?.at ?? 0;
  const axis = timeTicks(from, to);
  return (
    <div className="card" data-testid={testId}>
      <div className="title">
        <span>{title}</span>
        <span className="small muted">{data.length} points</span>
      </div>
      <div style={{ height: 160 }}>
        {data.length === 0 ? (
          <p className="muted small">No report yet.</p>
        ) : (
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -10 }}>
              <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
              <XAxis
                dataKey="at"
                type="number"
                domain={[from, to]}
                ticks={axis.ticks}
                tickFormatter={axis.label}
                stroke="var(--muted)"
                fontSize={11}
              />
              <YAxis stroke="var(--muted)" fontSize={11} />
              <Tooltip labelFormatter={(value) => new Date(Number(value)).toLocaleString()} contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)" }} />
              <Line type="monotone" dataKey="value" stroke="var(--chart-1)" dot={false} isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        )}
      </div>
    </div>
  );
}
