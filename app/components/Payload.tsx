// An untrusted payload, shown as text: React escapes it, and binary arrives as base64.
import type { PayloadPreview } from "../lib/types";

export function Payload({ preview }: { preview: PayloadPreview | null }) {
  if (!preview) return <span className="muted small">(no payload)</span>;
  return (
    <div className="payload">
      <div className="small muted">
        {preview.bytes} bytes{preview.encoding === "base64" ? ", binary shown as base64" : ""}
        {preview.truncated ? ", truncated" : ""}
      </div>
      <pre>{preview.text}</pre>
    </div>
  );
}
