// Loads varal.config.yaml (or .json) from VARAL_CONFIG or the working directory.
// With no file, Varal watches the four local defaults. An invalid file stops start-up with
// the file, the field and the reason.
import fs from "node:fs";
import path from "node:path";
import YAML from "yaml";
import { configSchema, type VaralConfig } from "./schema";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export const DEFAULT_CONFIG_FILES = ["varal.config.yaml", "varal.config.yml", "varal.config.json"];

export const LOCAL_DEFAULTS = {
  brokers: [
    { name: "redis", kind: "redis" },
    { name: "rabbitmq", kind: "rabbitmq" },
    { name: "kafka", kind: "kafka" },
    { name: "sqs", kind: "sqs", endpoint: "http://127.0.0.1:9324", accessKeyId: "local", secretAccessKey: "local" },
  ],
};

/** Replaces ${NAME} in every string with the environment's value; a missing one is an error. */
export function resolveEnvReferences(value: unknown, env: Record<string, string | undefined>, at: string[] = []): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const resolved = env[name];
      if (resolved === undefined) {
        throw new ConfigError(`${formatPath(at)}: environment variable ${name} is not set (referenced as \${${name}})`);
      }
      return resolved;
    });
  }
  if (Array.isArray(value)) return value.map((item, index) => resolveEnvReferences(item, env, [...at, String(index)]));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveEnvReferences(item, env, [...at, key])]),
    );
  }
  return value;
}

function formatPath(at: (string | number)[]): string {
  return at.length === 0 ? "(top level)" : at.map((part) => (/^\d+$/.test(String(part)) ? `[${part}]` : `.${part}`)).join("").replace(/^\./, "");
}

export function parseConfig(raw: unknown, source: string, env: Record<string, string | undefined> = process.env): VaralConfig {
  let resolved: unknown;
  try {
    resolved = resolveEnvReferences(raw ?? {}, env);
  } catch (error) {
    throw new ConfigError(`${source}: ${(error as Error).message}`);
  }
  const result = configSchema.safeParse(resolved);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const field = formatPath(issue.path as (string | number)[]);
      const message =
        issue.code === "invalid_union" && issue.path.at(-1) === "kind"
          ? `unknown broker kind; use one of redis, rabbitmq, kafka, sqs`
          : issue.message;
      return `  ${field}: ${message}`;
    });
    throw new ConfigError(`${source} is invalid:\n${lines.join("\n")}`);
  }
  return result.data;
}

export interface LoadedConfig {
  config: VaralConfig;
  /** The file it came from, or null for the built-in local defaults. */
  file: string | null;
}

export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): LoadedConfig {
  const explicit = env.VARAL_CONFIG?.trim();
  const candidates = explicit ? [path.resolve(/*turbopackIgnore: true*/ cwd, explicit)] : DEFAULT_CONFIG_FILES.map((file) => path.join(/*turbopackIgnore: true*/ cwd, file));
  const file = candidates.find((candidate) => fs.existsSync(candidate));
  if (!file) {
    if (explicit) throw new ConfigError(`VARAL_CONFIG names ${explicit}, which does not exist`);
    return { config: parseConfig(LOCAL_DEFAULTS, "built-in defaults", env), file: null };
  }
  const text = fs.readFileSync(file, "utf8");
  let raw: unknown;
  try {
    raw = file.endsWith(".json") ? JSON.parse(text) : YAML.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not valid ${file.endsWith(".json") ? "JSON" : "YAML"}: ${(error as Error).message}`);
  }
  return { config: parseConfig(raw, file, env), file };
}
