// The dashboard's side of the agent: what a report may hold, and the kernel advice.
import { describe, expect, it } from "vitest";
import { kernelFindings } from "@/server/agents/kernel";
import { reportSchema } from "@/server/agents/report";

const report = {
  host: "web-1",
  agentVersion: "0.1.0",
  bootId: "b",
  sentAt: 1,
  intervalSeconds: 5,
  rings: [],
  foreign: [],
  orphans: [],
  commandResults: [],
};

describe("agent reports", () => {
  it("takes a well-formed report", () => {
    expect(reportSchema.safeParse(report).success).toBe(true);
  });

  it("refuses host names that are paths or markup, ratios past 1, negative counts and unknown states", () => {
    for (const host of ["../etc", "web 1", "<b>x</b>", ""]) expect(reportSchema.safeParse({ ...report, host }).success).toBe(false);
    const ring = {
      segment: "orders",
      inode: 1,
      sizeBytes: 8192,
      name: "orders",
      capacity: 4096,
      occupancy: 10,
      occupancyRatio: 0.01,
      published: 1,
      consumed: 1,
      fullEvents: 0,
      oldestAgeSeconds: null,
      latency: { lastNs: 1, maxNs: 1, p50Ns: 1, p99Ns: 1 },
      producer: { pid: 1, state: "alive", heartbeatAgeSeconds: 0 },
      consumer: { pid: 0, state: "none", heartbeatAgeSeconds: null },
      corrupt: false,
    };
    expect(reportSchema.safeParse({ ...report, rings: [ring] }).success).toBe(true);
    expect(reportSchema.safeParse({ ...report, rings: [{ ...ring, occupancyRatio: 1.5 }] }).success).toBe(false);
    expect(reportSchema.safeParse({ ...report, rings: [{ ...ring, occupancy: -1 }] }).success).toBe(false);
    expect(reportSchema.safeParse({ ...report, rings: [{ ...ring, producer: { ...ring.producer, state: "zombie" } }] }).success).toBe(false);
  });
});

describe("kernel settings", () => {
  it("says what Redis, RabbitMQ and Kafka hosts need changed, and nothing when all is well", () => {
    const findings = kernelFindings({
      "vm.overcommit_memory": 0,
      transparent_hugepage: "always",
      "net.core.somaxconn": 128,
      "vm.swappiness": 60,
      open_files_limit: 1024,
      "fs.file-max": 9_000_000,
      "net.core.netdev_max_backlog": 1000,
    });
    expect(findings.map((finding) => finding.setting).sort()).toEqual(["net.core.somaxconn", "open_files_limit", "transparent_hugepage", "vm.overcommit_memory", "vm.swappiness"]);
    expect(findings.find((finding) => finding.setting === "vm.overcommit_memory")!.advice).toContain("= 1");
    expect(
      kernelFindings({
        "vm.overcommit_memory": 1,
        transparent_hugepage: "never",
        "net.core.somaxconn": 4096,
        "vm.swappiness": 1,
        open_files_limit: 1_048_576,
        "fs.file-max": 9_000_000,
        "net.core.netdev_max_backlog": 5000,
      }),
    ).toEqual([]);
    expect(kernelFindings({ "vm.swappiness": null })).toEqual([]);
  });
});
