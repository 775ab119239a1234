import { describe, expect, it } from "vitest";
import { renderFamilies } from "@/server/metrics/prometheus";

describe("Prometheus text format", () => {
  it("writes HELP and TYPE once per family and escapes label values", () => {
    const text = renderFamilies([
      {
        name: "varal_queue_depth_messages",
        help: "Messages ready.",
        type: "gauge",
        samples: [{ labels: { broker: "r", queue: 'a"b\\c\nd' }, value: 3 }],
      },
    ]);
    expect(text).toBe(
      '# HELP varal_queue_depth_messages Messages ready.\n# TYPE varal_queue_depth_messages gauge\nvaral_queue_depth_messages{broker="r",queue="a\\"b\\\\c\\nd"} 3\n',
    );
  });
});
