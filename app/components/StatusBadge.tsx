export function StatusBadge({ status, title }: { status: string; title?: string | null }) {
  return (
    <span className={`badge status-${status}`} title={title ?? undefined} data-status={status}>
      {status}
    </span>
  );
}
