// Demo rings on this host and varal-agent reporting them to the dashboard: a healthy ring,
// one filling up (its consumer is slower than its producer), one whose consumer
// stalls, and one left behind by a crashed producer that becomes an orphan.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createToken } from "../../server/auth/tokens";
import { openDb } from "../../server/db/client";

const ROOT = "/dev/shm/varal-demo";
const BUILD = path.resolve("native-agent/build");

/**
 * The agent's token: VARAL_AGENT_TOKEN, else one made through the API with VARAL_ADMIN_TOKEN,
 * else one written straight into the store the dashboard uses (DATABASE_URL, or the embedded
 * SQLite file `npm start` made), as an admin would from Users & tokens.
 */
async function agentToken(url: string): Promise<string | null> {
  if (process.env.VARAL_AGENT_TOKEN) return process.env.VARAL_AGENT_TOKEN;
  if (process.env.VARAL_ADMIN_TOKEN) {
    const response = await fetch(`${url}/api/tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${process.env.VARAL_ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "demo agent", kind: "agent" }),
    }).catch(() => null);
    return response?.ok ? ((await response.json()) as { token: string }).token : null;
  }
  try {
    await openDb();
    return (await createToken("demo agent", "agent", null)).token;
  } catch {
    return null; // no store yet: `npm start` creates it
  }
}

export async function startAgentDemo(url = process.env.VARAL_URL ?? "http://127.0.0.1:3000"): Promise<() => Promise<void>> {
  const built = spawnSync("make", ["-s", "-C", "native-agent", "all"], { stdio: "inherit" });
  if (built.status !== 0) {
    // The other parts of the demo go on without it.
    console.log("demo: agent: skipped: make in native-agent failed (it needs gcc, make and libcurl4-openssl-dev)");
    return async () => undefined;
  }
  fs.rmSync(ROOT, { recursive: true, force: true });
  fs.mkdirSync(ROOT, { recursive: true });
  const children: ChildProcess[] = [];
  const run = (binary: string, args: string[]) => {
    const child = spawn(path.join(BUILD, binary), args, { stdio: ["ignore", "ignore", "inherit"] });
    children.push(child);
    return child;
  };
  const ring = (name: string, producerRate: number, consumerRate: number | null, extra: string[] = []) => {
    run("varal-ring-producer", ["--path", `${ROOT}/${name}`, "--create", "--capacity", String(1 << 20), "--name", name, "--rate", String(producerRate), "--size", "128"]);
    if (consumerRate !== null) setTimeout(() => run("varal-ring-consumer", ["--path", `${ROOT}/${name}`, "--rate", String(consumerRate), ...extra]), 300);
  };
  ring("demo-orders", 1_000, 1_000);
  ring("demo-quotes", 2_000, 1_700);
  ring("demo-audit", 200, 200, ["--stall"]);
  // A producer that publishes ten records and exits without closing: a crash, in effect.
  run("varal-ring-producer", ["--path", `${ROOT}/demo-crashed`, "--create", "--capacity", "65536", "--name", "demo-crashed", "--count", "10"]);
  const token = await agentToken(url);
  if (token) {
    run("varal-agent", ["--server", url, "--token", token, "--host", "demo-host", "--interval", "2", "--shm-root", ROOT, "--grace", "10", "--min-age", "10"]);
    console.log(`demo: agent: rings in ${ROOT} reported to ${url} as host demo-host (demo-quotes fills up, demo-audit stalls, demo-crashed becomes an orphan)`);
  } else {
    console.log(`demo: agent: rings in ${ROOT}; no store to make an agent token in yet: run npm start first, or give VARAL_AGENT_TOKEN`);
  }
  return async () => {
    for (const child of children) child.kill("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 300));
    fs.rmSync(ROOT, { recursive: true, force: true });
  };
}
