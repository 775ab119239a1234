// Message payloads are untrusted: a bounded preview that is always plain text. Valid UTF-8
// is shown as text; anything else as base64. The UI renders it as text, never as HTML.

export const PREVIEW_BYTES = 4096;

export interface PayloadPreview {
  encoding: "utf8" | "base64";
  text: string;
  bytes: number;
  truncated: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function previewPayload(payload: Buffer | Uint8Array | string, limit = PREVIEW_BYTES): PayloadPreview {
  const bytes = typeof payload === "string" ? Buffer.from(payload, "utf8") : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const truncated = bytes.length > limit;
  let head = bytes.subarray(0, limit);
  // Do not cut a UTF-8 sequence in half: back off to the start of the last character.
  if (truncated) {
    let end = head.length;
    while (end > 0 && end > head.length - 4 && (head[end - 1] & 0xc0) === 0x80) end--;
    if (end > 0 && head[end - 1] >= 0xc0) end--;
    head = head.subarray(0, end);
  }
  try {
    const text = utf8.decode(head);
    // Control characters other than tab and newlines would garble the page: use base64.
    if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) {
      return { encoding: "utf8", text, bytes: bytes.length, truncated };
    }
  } catch {
    // not UTF-8
  }
  return { encoding: "base64", text: bytes.subarray(0, limit).toString("base64"), bytes: bytes.length, truncated };
}
