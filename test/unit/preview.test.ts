import { describe, expect, it } from "vitest";
import { previewPayload } from "@/server/brokers/preview";

describe("payload preview", () => {
  it("keeps UTF-8 text, markup included, as plain text", () => {
    expect(previewPayload("<script>alert('x')</script> ação")).toEqual({
      encoding: "utf8",
      text: "<script>alert('x')</script> ação",
      bytes: 34,
      truncated: false,
    });
  });

  it("shows invalid UTF-8 and binary as base64", () => {
    const invalid = Buffer.from([0x66, 0x6f, 0xff, 0xfe, 0x00]);
    expect(previewPayload(invalid)).toEqual({ encoding: "base64", text: invalid.toString("base64"), bytes: 5, truncated: false });
    expect(previewPayload(Buffer.from([0x01, 0x02])).encoding).toBe("base64");
  });

  it("bounds a 10 MB payload without splitting a character", () => {
    const huge = "é".repeat(5 * 1024 * 1024);
    const preview = previewPayload(huge, 4097);
    expect(preview.bytes).toBe(10 * 1024 * 1024);
    expect(preview.truncated).toBe(true);
    expect(preview.encoding).toBe("utf8");
    expect(preview.text).toBe("é".repeat(2048));
  });
});
