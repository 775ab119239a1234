"use client";
// A small line chart of points already in hand (a host's ring figures), in the style of MetricChart.
import { TimeLinePlot } from "./TimeLinePlot";

export function SeriesChart({ title, points, testId }: { title: string; points: Array<[number, number]>; testId?: string }) {
  const data = points.map(([at, value]) => ({ at, value }));
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
          <TimeLinePlot data={data} from={data[0].at} to={data.at(-1)!.at} />
        )}
      </div>
    </div>
  );
}
