// Starts the built Varal server (scripts/serve.ts, as `npm start` does) on a free port with its own SQLite store,
// as a user would run it, and stops it afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { migrate } from "./store";
import { waitFor } from "./wait";

export interface RunningServer {
  url: string;
  env: Record<string, string>;
  logs(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `scratch` is a folder for the server's store and config files (tests pass inject("scratch")). */
export async function startServer(options: { scratch: string; env?: Record<string, string>; config?: string }): Promise<RunningServer> {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("no production build: run `npx next build` (npm test does) first");
  const { scratch } = options;
  const port = await freePort();
  const databaseUrl = `file:${path.join(scratch, `server-${port}.db`)}`;
  migrate(databaseUrl);
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NEXT_TELEMETRY_DISABLED: "1",
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    ...options.env,
  };
  if (options.config) {
    const file = path.join(scratch, `config-${port}.yaml`);
    fs.writeFileSync(file, options.config);
    env.VARAL_CONFIG = file;
  }
  let output = "";
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "scripts/serve.ts"], {
    env: { ...env, HOSTNAME: "127.0.0.1" } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
        return fetch(`${url}/api/health`).then((response) => response.ok).catch(() => false);
      },
      { what: "the server to answer /api/health", timeoutMs: 60_000, intervalMs: 250 },
    );
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    url,
    env,
    logs: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A tiny HTTP client that keeps a session cookie and sends a same-origin Origin header. */
export class Session {
  cookie: string | null = null;
  constructor(
    readonly base: string,
    readonly options: { origin?: string | null; bearer?: string } = {},
  ) {}

  async call(method: string, route: string, body?: unknown): Promise<{ status: number; json: any; headers: Headers }> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.cookie) headers.cookie = this.cookie;
    if (this.options.bearer) headers.authorization = `Bearer ${this.options.bearer}`;
    const origin = this.options.origin === undefined ? this.base : this.options.origin;
    if (origin && method !== "GET") headers.origin = origin;
    const response = await fetch(`${this.base}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const setCookie = response.headers.get("set-cookie");
    if (setCookie) this.cookie = setCookie.split(";")[0];
    const text = await response.text();
    let json: any = text;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (/metrics)
    }
    return { status: response.status, json, headers: response.headers };
  }
}
