// npm run bench -- agent: the native benchmarks (`make bench` in native-agent): the ring
// against a pipe and a Unix socket, and varal-agent's scan time, RSS and CPU over 1,000 rings.
import { spawnSync } from "node:child_process";
import path from "node:path";

export async function runAgentBenchmark(): Promise<void> {
  const root = path.resolve(import.meta.dirname, "../..");
  const result = spawnSync("make", ["-s", "-C", path.join(root, "native-agent"), "bench"], {
    stdio: "inherit",
    env: { ...process.env, RESULTS_DIR: path.join(root, "bench-results") },
  });
  if (result.status !== 0) throw new Error(`make bench in native-agent failed (exit ${result.status})`);
}
