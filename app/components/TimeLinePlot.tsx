"use client";
// The line of one figure over a time window, drawn the same way on queue and host pages:
// the axis spans from..to with round time labels, whatever span the samples cover.
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { timeTicks } from "../lib/time-axis";

export interface TimeLinePlotProps {
  data: Array<{ at: number; value: number | null }>;
  from: number;
  to: number;
  /** Mark each sample with a dot (a few samples in a long window draw a line too short to see). */
  dots?: boolean;
  allowDecimals?: boolean;
}

export function TimeLinePlot({ data, from, to, dots = false, allowDecimals = true }: TimeLinePlotProps) {
  const axis = timeTicks(from, to);
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: -10 }}>
        <CartesianGrid stroke="var(--border)" strokeDasharray="3 3" />
        <XAxis dataKey="at" type="number" domain={[from, to]} ticks={axis.ticks} tickFormatter={axis.label} stroke="var(--muted)" fontSize={11} />
        <YAxis stroke="var(--muted)" fontSize={11} allowDecimals={allowDecimals} />
        <Tooltip labelFormatter={(value) => new Date(Number(value)).toLocaleString()} contentStyle={{ background: "var(--panel)", border: "1px solid var(--border)" }} />
        <Line type="monotone" dataKey="value" stroke="var(--chart-1)" dot={dots ? { r: 2 } : false} isAnimationActive={false} connectNulls={false} />
      </LineChart>
    </ResponsiveContainer>
  );
}
