// An operator in Chromium: a priority queue's bands, its dead letters with their failure
// reasons shown as text, and a redrive previewed, confirmed and followed to the end.
import crypto from "node:crypto";
import Redis from "ioredis";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PriorityQueue } from "@/server/brokers/redis/priority-queue";
import { launchBrowser, screenshot, signIn } from "../support/browser";
import { Session, startServer, type RunningServer } from "../support/server";

const ADMIN_TOKEN = crypto.randomBytes(24).toString("hex");
const name = `e2e-orders-${crypto.randomBytes(3).toString("hex")}`;
const redis = new Redis("redis://127.0.0.1:6379");
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  const queue = new PriorityQueue(redis, name);
  await queue.enqueueMany([
    { payload: "email 1", priority: 100 },
    { payload: "email 2", priority: 100 },
    { payload: "report", priority: 900 },
  ]);
  await queue.enqueueMany([{ payload: '<img src=x onerror="window.pwned=1">', priority: 5 }, { payload: "ok order", priority: 5 }]);
  const taken = await queue.dequeue(2, 60_000);
  for (const message of taken) await queue.fail(message.id, `<b>declined</b> ${message.id}`, { maxAttempts: 1, retryAt: 0 });
  server = await startServer({
    scratch: inject("scratch"),
    env: { VARAL_ADMIN_TOKEN: ADMIN_TOKEN },
    config: `pollIntervalMs: 1000\nbrokers:\n  - { name: redis, kind: redis, keyPattern: "vq:{${name}}*" }\n`,
  });
  const admin = new Session(server.url, { bearer: ADMIN_TOKEN, origin: null });
  expect((await admin.call("POST", "/api/users", { username: "operator1", password: "correct-horse-battery", role: "operator" })).status).toBe(201);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  const keys = await redis.keys(`vq:{${name}}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("Redis priority queue in the dashboard", () => {
  it("shows dead letters inertly and redrives them with a preview and a progress bar", async () => {
    const page = await browser.newPage();
    await signIn(page, server.url, "operator1", "correct-horse-battery");

    await page.goto(`${server.url}/queues/redis/${encodeURIComponent(name)}`);
    await page.getByTestId("priority-bands").locator(".recharts-bar-rectangle").first().waitFor({ state: "attached" });
    await page.getByRole("link", { name: `redis/${name}:dlq` }).click();
    await page.getByTestId("queue-title").filter({ hasText: `${name}:dlq` }).waitFor();

    const rows = page.getByTestId("message-row");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(2);
    const table = await page.getByTestId("message-browser").textContent();
    expect(table).toContain('<img src=x onerror="window.pwned=1">');
    expect(table).toContain("<b>declined</b>");
    expect(await page.locator("[data-testid=message-browser] img, [data-testid=message-browser] b").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();

    await page.getByTestId("action-redrive").click();
    await page.getByRole("button", { name: "Preview (dry run)" }).click();
    await page.getByTestId("dry-run").getByText("Would affect 2 message(s).").waitFor();
    await screenshot(page, "redis-dlq-preview");
    expect(await redis.zcard(`vq:{${name}}:dead`)).toBe(2);
    await page.getByTestId("action-confirm").click();
    await page.getByRole("link", { name: "Actions", exact: true }).last().click();
    const row = page.locator("[data-testid^=action-row-]").first();
    await row.locator(".state-succeeded").waitFor({ timeout: 20_000 });
    expect(await row.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("2");
    await screenshot(page, "actions");
    expect(await redis.zcard(`vq:{${name}}:dead`)).toBe(0);
    expect(await redis.zcard(`vq:{${name}}:wait`)).toBe(5);
    await page.close();
  });
});
