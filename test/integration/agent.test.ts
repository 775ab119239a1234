// varal-agent against a real dashboard, on real segments in a test shm root under /dev/shm:
// occupancy with a producer and a consumer running; the consumer SIGKILLed (dead, filling);
// both killed (an orphan after the grace period) and removed by the dashboard's cleanup,
// confirmed by the next report; a segment a live process holds without locks kept; bad
// segments listed; an unreachable dashboard retried while scanning goes on; a silent agent.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { Session, startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";

const BUILD = path.resolve("native-agent/build");
const ADMIN_TOKEN = crypto.randomBytes(24).toString("hex");
const HOST = `it-${crypto.randomBytes(3).toString("hex")}`;
const root = `/dev/shm/varal-it-${process.pid}`;
let server: RunningServer;
let admin: Session;
let agentToken: string;
const children: ChildProcess[] = [];

function start(binary: string, args: string[]): ChildProcess {
  const child = spawn(path.join(BUILD, binary), args, { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  return child;
}

/** Starts a ring tool and waits for its "ready" line. */
async function tool(binary: "varal-ring-producer" | "varal-ring-consumer", args: string[]): Promise<ChildProcess> {
  const child = start(binary, args);
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  await waitFor(() => output.includes("ready") || child.exitCode !== null, { what: `${binary} to attach` });
  if (!output.includes("ready")) throw new Error(`${binary} failed: ${output}`);
  return child;
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

function startAgent(extra: string[] = []): ChildProcess {
  return start("varal-agent", ["--server", server.url, "--token", agentToken, "--host", HOST, "--interval", "0.5", "--shm-root", root, "--grace", "1", "--min-age", "0", ...extra]);
}

async function hostReport() {
  const response = await admin.call("GET", `/api/hosts/${HOST}`);
  return response.status === 200 ? response.json : null;
}

async function ring(segment: string) {
  return (await hostReport())?.report.rings.find((entry: { segment: string }) => entry.segment === segment) ?? null;
}

beforeAll(async () => {
  const built = spawnSync("make", ["-s", "-C", "native-agent", "all"], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`make in native-agent failed: ${built.stderr}`);
  fs.mkdirSync(root, { recursive: true });
  server = await startServer({ scratch: inject("scratch"), env: { VARAL_ADMIN_TOKEN: ADMIN_TOKEN }, config: "brokers: []\n" });
  admin = new Session(server.url, { bearer: ADMIN_TOKEN, origin: null });
  const token = await admin.call("POST", "/api/tokens", { name: "it agent", kind: "agent" });
  expect(token.status).toBe(201);
  agentToken = token.json.token;
});

afterAll(async () => {
  for (const child of children) await kill(child);
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("varal-agent", () => {
  it("reports occupancy and states; a killed consumer goes dead while the ring fills; both killed, an orphan the dashboard removes", async () => {
    const segment = "orders";
    const producer = await tool("varal-ring-producer", ["--path", `${root}/${segment}`, "--create", "--capacity", "1048576", "--name", "orders", "--rate", "2000", "--size", "64"]);
    const consumer = await tool("varal-ring-consumer", ["--path", `${root}/${segment}`, "--rate", "4000"]);
    startAgent();
    const running = await waitFor(async () => {
      const entry = await ring(segment);
      return entry && entry.producer.state === "alive" && entry.consumer.state === "alive" && entry.consumeRate !== null ? entry : null;
    }, { what: "a report with both participants alive" });
    expect(running.occupancyRatio).toBeLessThan(0.2);
    expect(running.name).toBe("orders");

    await kill(consumer);
    const dead = await waitFor(async () => {
      const entry = await ring(segment);
      return entry && entry.consumer.state === "dead" ? entry : null;
    }, { what: "the consumer reported dead" });
    const filling = await waitFor(async () => {
      const entry = await ring(segment);
      return entry && entry.occupancy > dead.occupancy + 5_000 ? entry : null;
    }, { what: "occupancy growing with no consumer" });
    expect(filling.producer.state).toBe("alive");
    expect((await hostReport()).status).toBe("degraded");

    await kill(producer);
    const orphan = await waitFor(async () => (await hostReport())?.report.orphans.find((entry: { segment: string }) => entry.segment === segment), {
      what: "the segment listed as an orphan after the grace period",
    });
    expect(orphan.reason).toContain("gone");
    // A command bound to another inode is refused by the dashboard and changes nothing.
    const wrong = await admin.call("POST", "/api/actions", { kind: "segment-cleanup", target: { host: HOST, segment, inode: orphan.inode + 1 }, params: {}, idempotencyKey: crypto.randomUUID() });
    expect(wrong.status).toBe(409);
    expect(wrong.json.error.message).toContain("recreated");
    const preview = await admin.call("POST", "/api/actions", { kind: "segment-cleanup", target: { host: HOST, segment, inode: orphan.inode }, params: {}, dryRun: true, idempotencyKey: crypto.randomUUID() });
    expect(preview).toMatchObject({ status: 200, json: { wouldAffect: 1 } });
    expect(fs.existsSync(`${root}/${segment}`)).toBe(true);
    const started = await admin.call("POST", "/api/actions", { kind: "segment-cleanup", target: { host: HOST, segment, inode: orphan.inode }, params: {}, idempotencyKey: crypto.randomUUID() });
    expect(started.status).toBe(202);
    const done = await waitFor(async () => {
      const action = (await admin.call("GET", `/api/actions/${started.json.id}`)).json;
      return ["succeeded", "failed", "cancelled"].includes(action.state) ? action : null;
    }, { what: "the cleanup action to end" });
    expect(done).toMatchObject({ state: "succeeded", result: { removed: segment } });
    expect(fs.readdirSync(root)).not.toContain(segment);
    // The next report confirms: the segment is gone from the rings and the orphans.
    await waitFor(async () => {
      const report = (await hostReport()).report;
      return !report.rings.some((entry: { segment: string }) => entry.segment === segment) && report.orphans.length === 0;
    }, { what: "a report without the segment" });
    const audit = await admin.call("GET", "/api/audit?limit=50");
    expect(audit.json.items.some((event: { event: string; target: string }) => event.event === "action.segment-cleanup" && event.target.includes(segment))).toBe(true);
  });

  it("keeps a segment that a live process holds without the ring's locks, and lists what is not a ring", async () => {
    await tool("varal-ring-producer", ["--path", `${root}/held`, "--create", "--capacity", "4096", "--name", "held", "--count", "1", "--heartbeat-ms", "10"]);
    // A process that opened the ring but never took a lock (the fd is its stdin).
    const fd = fs.openSync(`${root}/held`, "r");
    const holder = spawn("sleep", ["600"], { stdio: [fd, "ignore", "ignore"] });
    children.push(holder);
    fs.closeSync(fd);
    fs.writeFileSync(`${root}/notaring`, "plain bytes");
    fs.writeFileSync(`${root}/truncated`, Buffer.concat([Buffer.from("VARALRNG"), Buffer.alloc(100)]));
    fs.mkdirSync(`${root}/adir`);
    fs.symlinkSync("/etc/hostname", `${root}/alink`);
    // Once its heartbeats are past the grace period it would be an orphan, but for the holder.
    const held = await waitFor(async () => {
      const entry = await ring("held");
      return entry?.keptBecause ? entry : null;
    }, { what: "the held ring reported as kept" });
    expect(held.keptBecause).toContain(`pid ${holder.pid} maps it without the ring's locks`);
    // Its producer detached cleanly after its one record.
    expect(held.producer.state).toBe("none");
    const report = (await hostReport()).report;
    expect(report.orphans.some((entry: { segment: string }) => entry.segment === "held")).toBe(false);
    const refused = await admin.call("POST", "/api/actions", { kind: "segment-cleanup", target: { host: HOST, segment: "held", inode: held.inode }, params: {}, idempotencyKey: crypto.randomUUID() });
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain("not an orphan");
    expect(fs.existsSync(`${root}/held`)).toBe(true);
    const reasons = Object.fromEntries(report.foreign.map((entry: { segment: string; reason: string }) => [entry.segment, entry.reason]));
    expect(reasons).toMatchObject({
      notaring: expect.stringContaining("magic"),
      truncated: expect.stringContaining("truncated"),
      adir: "a directory",
      alink: expect.stringContaining("never followed"),
    });
    expect(fs.readFileSync("/etc/hostname").length).toBeGreaterThan(0);
    await kill(holder);
  });

  it("gives back its name to a segment an agent killed mid-cleanup left in quarantine", async () => {
    // The agent renames a segment to its quarantine name for one scan before unlinking it;
    // killed in between, the next agent to start must not lose the segment under that name.
    await tool("varal-ring-producer", ["--path", `${root}/interrupted`, "--create", "--capacity", "4096", "--name", "interrupted", "--count", "2"]);
    const inode = fs.statSync(`${root}/interrupted`).ino;
    fs.renameSync(`${root}/interrupted`, `${root}/.varal-quarantine.${inode}.interrupted`);
    const once = spawnSync(path.join(BUILD, "varal-agent"), ["--once", "--json", "--shm-root", root], { encoding: "utf8" });
    expect(once.status).toBe(0);
    expect(once.stderr).toContain("gave interrupted its name back");
    expect(fs.statSync(`${root}/interrupted`).ino).toBe(inode);
    expect(JSON.parse(once.stdout).rings.map((ring: { segment: string }) => ring.segment)).toContain("interrupted");
    fs.unlinkSync(`${root}/interrupted`);
  });

  it("refuses reports without an agent token and reports that are not reports", async () => {
    const viewer = new Session(server.url, { bearer: ADMIN_TOKEN, origin: null });
    expect((await viewer.call("POST", "/api/agents/report", {})).status).toBe(403);
    const agent = new Session(server.url, { bearer: agentToken, origin: null });
    const bad = await agent.call("POST", "/api/agents/report", { host: "../etc", rings: "no" });
    expect(bad.status).toBe(400);
    expect((await agent.call("GET", "/api/hosts")).status).toBe(403);
  });

  it("keeps scanning while the dashboard is unreachable, retrying with backoff, and the dashboard marks a silent agent", async () => {
    const textfile = fs.mkdtempSync(path.join(inject("scratch"), "textfile-"));
    const lonely = start("varal-agent", ["--server", "http://127.0.0.1:9", "--token", "x", "--host", "nowhere", "--interval", "0.2", "--shm-root", root, "--textfile", textfile]);
    let stderr = "";
    lonely.stderr!.on("data", (chunk) => (stderr += chunk));
    const prom = path.join(textfile, "varal_agent.prom");
    await waitFor(() => fs.existsSync(prom), { what: "the textfile" });
    const first = fs.statSync(prom).mtimeMs;
    await waitFor(() => fs.statSync(prom).mtimeMs > first, { what: "the textfile rewritten by later scans" });
    expect(fs.readFileSync(prom, "utf8")).toContain('varal_ring_occupancy_ratio{segment="held",name="held"}');
    expect(stderr).toContain("retrying with backoff");
    expect(lonely.exitCode).toBeNull();
    await kill(lonely);

    for (const child of children.filter((entry) => entry.spawnargs.some((arg) => arg === HOST))) await kill(child);
    const silent = await waitFor(async () => {
      const hosts = (await admin.call("GET", "/api/hosts")).json as Array<{ host: string; status: string; statusReason: string }>;
      return hosts.find((entry) => entry.host === HOST && entry.status === "silent") ?? null;
    }, { what: "the host marked silent" });
    expect(silent.statusReason).toContain("is varal-agent running");
    // A machine gone for good is forgotten by an admin, with its pending commands.
    expect((await admin.call("DELETE", `/api/hosts/${HOST}`)).status).toBe(200);
    expect((await admin.call("GET", `/api/hosts/${HOST}`)).status).toBe(404);
    expect((await admin.call("DELETE", `/api/hosts/${HOST}`)).status).toBe(404);
  });
});
