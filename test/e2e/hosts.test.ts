// An operator in Chromium on the Hosts pages: a host reported by a real varal-agent, its
// rings and their states, a segment named like markup shown as text, and an orphan cleaned
// up from the page, the agent carrying it out.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, screenshot, signIn } from "../support/browser";
import { Session, startServer, type RunningServer } from "../support/server";

const ADMIN_TOKEN = crypto.randomBytes(24).toString("hex");
const HOST = `e2e-${crypto.randomBytes(3).toString("hex")}`;
const BUILD = path.resolve("native-agent/build");
const root = `/dev/shm/varal-e2e-${process.pid}`;
const MARKUP = '<img src=x onerror="window.pwned=1">';
let server: RunningServer;
let browser: Browser;
const children: ChildProcess[] = [];

function run(binary: string, args: string[]): ChildProcess {
  const child = spawn(path.join(BUILD, binary), args, { stdio: "ignore" });
  children.push(child);
  return child;
}

beforeAll(async () => {
  const built = spawnSync("make", ["-s", "-C", "native-agent", "all"], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`make in native-agent failed: ${built.stderr}`);
  fs.mkdirSync(root, { recursive: true });
  server = await startServer({ scratch: inject("scratch"), env: { VARAL_ADMIN_TOKEN: ADMIN_TOKEN }, config: "brokers: []\n" });
  const admin = new Session(server.url, { bearer: ADMIN_TOKEN, origin: null });
  expect((await admin.call("POST", "/api/users", { username: "operator1", password: "correct-horse-battery", role: "operator" })).status).toBe(201);
  const token = (await admin.call("POST", "/api/tokens", { name: "e2e agent", kind: "agent" })).json.token as string;
  // A live ring, and one left by a producer that exited without closing: an orphan.
  run("varal-ring-producer", ["--path", `${root}/live`, "--create", "--capacity", "65536", "--name", "live", "--rate", "100"]);
  spawnSync(path.join(BUILD, "varal-ring-producer"), ["--path", `${root}/${MARKUP}`, "--create", "--capacity", "4096", "--name", "crashed", "--count", "3", "--heartbeat-ms", "10"]);
  run("varal-agent", ["--server", server.url, "--token", token, "--host", HOST, "--interval", "0.5", "--shm-root", root, "--grace", "0.2", "--min-age", "0"]);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  for (const child of children) child.kill("SIGKILL");
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe("Hosts in the dashboard", () => {
  it("lists the host, shows its rings, and cleans up an orphan named like markup, as text", async () => {
    const page = await browser.newPage();
    await signIn(page, server.url, "operator1", "correct-horse-battery");
    await page.getByRole("link", { name: "Hosts", exact: true }).click();
    await page.getByTestId("host-row").filter({ hasText: HOST }).getByRole("link", { name: HOST }).click();
    await page.getByTestId("host-title").filter({ hasText: HOST }).waitFor();
    await page.getByTestId("ring-row").filter({ hasText: "live" }).getByText("alive").first().waitFor({ timeout: 20_000 });
    const orphan = page.getByTestId("orphan-row").filter({ hasText: MARKUP });
    await orphan.waitFor({ timeout: 20_000 });
    expect(await page.locator("[data-testid=orphans] img").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await page.getByTestId("chart-occupancy").waitFor();
    await screenshot(page, "host");

    await orphan.getByRole("button", { name: "Clean up…" }).click();
    await orphan.getByText("quarantines it for one scan").waitFor();
    expect(fs.existsSync(`${root}/${MARKUP}`)).toBe(true);
    await orphan.getByTestId("cleanup-confirm").click();
    await page.getByRole("link", { name: "Actions", exact: true }).last().click();
    await page.locator("[data-testid^=action-row-]").first().locator(".state-succeeded").waitFor({ timeout: 20_000 });
    expect(fs.readdirSync(root)).toEqual(["live"]);
    await page.goBack();
    await page.getByText("None: every ring has a live participant").waitFor({ timeout: 20_000 });
    await page.close();
  });
});
