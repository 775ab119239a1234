export function ProgressBar({ done, total }: { done: number; total: number | null }) {
  const percent = total ? Math.min(100, (done / total) * 100) : null;
  return (
    <div className="row" style={{ gap: 6 }}>
      <div
        className="progress"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={total ?? undefined}
        aria-valuenow={done}
        style={{ flex: 1 }}
      >
        <div style={{ width: `${percent ?? 0}%` }} />
      </div>
      <span className="small muted mono">
        {done}
        {total !== null ? ` / ${total}` : ""}
      </span>
    </div>
  );
}
