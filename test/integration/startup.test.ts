// Start-up with a wrong configuration: the server stops before serving, and says which
// file, which field and why.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

function serve(configText: string): Promise<{ code: number | null; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "varal-startup-"));
  const file = path.join(dir, "varal.config.yaml");
  fs.writeFileSync(file, configText);
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/serve.ts"], {
    env: { ...process.env, VARAL_CONFIG: file, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return new Promise((resolve) => {
    child.on("exit", (code) => {
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code, output: output.replaceAll(file, "<file>") });
    });
  });
}

describe("start-up", () => {
  it("stops on an invalid configuration, naming the file, the field and the reason", async () => {
    const { code, output } = await serve("pollIntervalMs: 10\nbrokers:\n  - { name: cache, kind: redis, url: http://cache.internal }\n");
    expect(code).toBe(1);
    expect(output).toContain("<file> is invalid:");
    expect(output).toContain("pollIntervalMs: Too small: expected number to be >=500");
    expect(output).toContain("brokers[0].url: a redis:// or rediss:// URL");
    expect(output).not.toContain("serving on");
  });

  it("stops on an unknown broker kind, listing the known ones", async () => {
    const { code, output } = await serve("brokers:\n  - { name: bus, kind: nats }\n");
    expect(code).toBe(1);
    expect(output).toMatch(/brokers\[0\]\.kind.*redis.*rabbitmq.*kafka.*sqs/);
    expect(output).not.toContain("serving on");
  });
});
