/** A status in its colour; `label` names it when the status word is not what the reader calls it. */
export function StatusBadge({ status, title, label }: { status: string; title?: string | null; label?: string }) {
  return (
    <span className={`badge status-${status}`} title={title ?? undefined} data-status={status}>
      {label ?? status}
    </span>
  );
}
