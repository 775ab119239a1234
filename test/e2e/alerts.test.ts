// An admin in Chromium adds a channel and a rule, sends a test, and watches an alert fire.
import crypto from "node:crypto";
import Redis from "ioredis";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, screenshot, signIn } from "../support/browser";
import { Session, startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";
import { startReceiver } from "../support/webhook-receiver";

const TOKEN = crypto.randomBytes(24).toString("hex");
const list = `e2e-alerts-${crypto.randomBytes(3).toString("hex")}`;
const redis = new Redis("redis://127.0.0.1:6379");
let server: RunningServer;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startServer({
    scratch: inject("scratch"),
    env: { VARAL_ADMIN_TOKEN: TOKEN },
    config: `pollIntervalMs: 500\nalerts: { evaluationIntervalMs: 300 }\nbrokers:\n  - { name: redis, kind: redis, keyPattern: "${list}*" }\n`,
  });
  const api = new Session(server.url, { bearer: TOKEN, origin: null });
  expect((await api.call("POST", "/api/users", { username: "admin2", password: "correct-horse-battery", role: "admin" })).status).toBe(201);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver.close();
  await redis.del(list);
  redis.disconnect();
});

describe("alerts page", () => {
  it("adds a channel and a rule, sends a test, shows the alert firing, silences it, and takes it all down again", async () => {
    const page = await browser.newPage();
    await signIn(page, server.url, "admin2", "correct-horse-battery");
    await page.getByRole("link", { name: "Alerts" }).click();

    await page.getByLabel("Channel name").fill("pager");
    await page.getByLabel("Channel kind").selectOption("alertmanager");
    await page.getByLabel("Channel URL").fill(receiver.url);
    await page.getByRole("button", { name: "Add channel" }).click();
    await page.getByRole("cell", { name: "pager", exact: true }).waitFor();
    await page.getByRole("button", { name: "Send a test" }).click();
    await waitFor(() => receiver.received.length === 1, { what: "the test notification" });
    expect(JSON.parse(receiver.received[0].body).commonAnnotations.summary).toBe("A test notification from Varal to pager");
    // The page follows a pending delivery until it is delivered.
    const testDelivery = page.getByRole("region", { name: "Deliveries" }).getByRole("row").filter({ hasText: "A test notification" });
    await testDelivery.filter({ hasText: "delivered" }).waitFor({ timeout: 8_000 });

    await page.getByLabel("Rule name").fill("emails waiting");
    await page.getByLabel("Metric").selectOption("depth");
    await page.getByLabel("Threshold").fill("0");
    await page.getByLabel("For", { exact: true }).fill("0s");
    await page.getByLabel("Queue", { exact: true }).fill(list);
    await page.getByLabel("Channel", { exact: true }).selectOption({ label: "pager" });
    await page.getByRole("button", { name: "Add rule" }).click();
    await page.getByRole("cell", { name: /emails waiting/ }).waitFor();

    await redis.lpush(list, "x");
    const firing = page.getByRole("region", { name: "Firing and recent alerts" }).getByRole("row").filter({ hasText: "emails waiting" });
    await firing.filter({ hasText: "firing" }).waitFor({ timeout: 20_000 });
    expect(await firing.textContent()).not.toContain("silenced");
    await waitFor(() => receiver.received.length === 2, { what: "the firing notification" });
    expect(JSON.parse(receiver.received[1].body)).toMatchObject({ status: "firing", alerts: [{ labels: { alertname: "emails waiting", queue: list } }] });

    // Silenced, the alert stays on the page, marked: only its notifications are held.
    await page.getByLabel("Silence queue").fill(list);
    await page.getByLabel("Silence comment").fill("maintenance");
    await page.getByRole("button", { name: "Silence", exact: true }).click();
    await page.getByRole("cell", { name: "maintenance" }).waitFor();
    await firing.filter({ hasText: "silenced" }).waitFor({ timeout: 20_000 });
    await screenshot(page, "alerts");
    await page.getByRole("button", { name: "End now" }).click();
    await page.getByText("No silence in force.").waitFor();

    // The channel is in use: deleting it is refused with the rule named; once the rule is
    // gone, it goes.
    await page.getByRole("button", { name: "Turn off" }).click();
    await page.getByText("(off)").waitFor();
    const channels = page.getByRole("region", { name: "Channels" });
    await channels.getByRole("button", { name: "Delete" }).click();
    await channels.getByRole("alert").filter({ hasText: 'Rule(s) "emails waiting" send to channel "pager"' }).waitFor();
    const rules = page.getByRole("region", { name: "Rules" });
    await rules.getByRole("button", { name: "Delete" }).click();
    await rules.getByRole("cell", { name: /emails waiting/ }).waitFor({ state: "detached" });
    await channels.getByRole("button", { name: "Delete" }).click();
    await channels.getByRole("cell", { name: "pager", exact: true }).waitFor({ state: "detached" });
    await page.close();
  });
});
