import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "@/server/config/load";

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "varal-config-"));
}

describe("configuration", () => {
  it("watches the four local brokers when there is no file", () => {
    const { config, file } = loadConfig({}, tempDir());
    expect(file).toBeNull();
    expect(config.brokers.map((broker) => [broker.name, broker.kind])).toEqual([
      ["redis", "redis"],
      ["rabbitmq", "rabbitmq"],
      ["kafka", "kafka"],
      ["sqs", "sqs"],
    ]);
    expect(config.brokers[0]).toMatchObject({ url: "redis://127.0.0.1:6379" });
    expect(config.brokers[1]).toMatchObject({ url: "amqp://guest:guest@127.0.0.1:5672", managementUrl: "http://127.0.0.1:15672" });
    expect(config.brokers[2]).toMatchObject({ brokers: ["127.0.0.1:9092"] });
    expect(config.brokers[3]).toMatchObject({ endpoint: "http://127.0.0.1:9324" });
  });

  it("reads YAML from VARAL_CONFIG and resolves ${ENV} references", () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, "custom.yaml"),
      "pollIntervalMs: 2000\nbrokers:\n  - name: prod-rabbit\n    kind: rabbitmq\n    url: amqp://ops:${RABBIT_PASSWORD}@rabbit:5672\n    managementUrl: http://rabbit:15672\n",
    );
    const { config, file } = loadConfig({ VARAL_CONFIG: "custom.yaml", RABBIT_PASSWORD: "s3cret" }, dir);
    expect(file).toBe(path.join(dir, "custom.yaml"));
    expect(config.pollIntervalMs).toBe(2000);
    expect(config.brokers[0]).toMatchObject({ name: "prod-rabbit", url: "amqp://ops:s3cret@rabbit:5672" });
  });

  it("names the file, the field and the reason for an invalid value", () => {
    expect(() =>
      parseConfig({ brokers: [{ name: "r", kind: "redis", url: "http://nope" }] }, "/etc/varal.config.yaml"),
    ).toThrowError(/\/etc\/varal\.config\.yaml is invalid:\n {2}brokers\[0\]\.url: a redis:\/\/ or rediss:\/\/ URL/);
  });

  it("refuses an unknown broker kind, listing the known ones", () => {
    let error: unknown;
    try {
      parseConfig({ brokers: [{ name: "x", kind: "zeromq" }] }, "varal.config.yaml");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain("brokers[0].kind");
    expect((error as Error).message).toContain("redis, rabbitmq, kafka, sqs");
  });

  it("refuses a missing environment variable and duplicate broker names", () => {
    expect(() => parseConfig({ brokers: [{ name: "r", kind: "redis", url: "redis://${NOPE}" }] }, "f.yaml", {})).toThrowError(
      /f\.yaml: brokers\[0\]\.url: environment variable NOPE is not set/,
    );
    expect(() =>
      parseConfig({ brokers: [{ name: "a", kind: "redis" }, { name: "a", kind: "kafka" }] }, "f.yaml"),
    ).toThrowError(/brokers\[1\]\.name: duplicate broker name "a"/);
  });

  it("reports YAML syntax errors with the file name", () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "varal.config.yaml"), "brokers: [\n  - : :\n");
    expect(() => loadConfig({}, dir)).toThrowError(/varal\.config\.yaml: not valid YAML/);
  });

  it("says when VARAL_CONFIG names a file that does not exist", () => {
    expect(() => loadConfig({ VARAL_CONFIG: "missing.yaml" }, tempDir())).toThrowError(/VARAL_CONFIG names missing\.yaml, which does not exist/);
  });
});
