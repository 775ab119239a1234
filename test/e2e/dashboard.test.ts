// A person's path through the dashboard in a real Chromium: first-run setup, sign in, the
// four brokers with their true status, a queue's chart, sign out; a viewer refused an action;
// an admin managing users and tokens, read back in the audit log.
import crypto from "node:crypto";
import Redis from "ioredis";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, screenshot, signIn } from "../support/browser";
import { Session, startServer, type RunningServer } from "../support/server";

const ADMIN_TOKEN = crypto.randomBytes(24).toString("hex");
const prefix = `varal-e2e:${crypto.randomBytes(4).toString("hex")}`;
const listName = `${prefix}:emails`;
const redis = new Redis("redis://127.0.0.1:6379");
let server: RunningServer;
let browser: Browser;

const CONFIG = `pollIntervalMs: 1000
brokers:
  - { name: redis, kind: redis, keyPattern: "${prefix}*" }
  - { name: rabbitmq, kind: rabbitmq }
  - { name: kafka, kind: kafka }
  - { name: sqs, kind: sqs, endpoint: "http://127.0.0.1:9324", accessKeyId: local, secretAccessKey: local }
  - { name: offline, kind: redis, url: "redis://127.0.0.1:1" }
`;

beforeAll(async () => {
  await redis.lpush(listName, "<img src=x onerror=alert(1)>", "hello");
  server = await startServer({ scratch: inject("scratch"), env: { VARAL_ADMIN_TOKEN: ADMIN_TOKEN }, config: CONFIG });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await redis.del(listName);
  redis.disconnect();
});

describe("dashboard in Chromium", () => {
  it("sets up the first admin, shows the brokers' true status and a queue's chart, and signs out", async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(server.url);
    await page.waitForURL(/\/setup$/);
    await page.getByLabel("Password (10 characters or more)").fill("correct-horse-battery");
    await page.getByLabel("Repeat the password").fill("correct-horse-battery");
    await page.getByRole("button", { name: "Create administrator" }).click();
    await page.getByTestId("who").waitFor();
    expect(await page.getByTestId("who").textContent()).toBe("admin · admin");

    for (const name of ["rabbitmq", "kafka", "sqs"]) {
      await page.getByTestId(`broker-${name}`).locator('[data-status="ok"]').waitFor({ timeout: 20_000 });
    }
    // This machine's Redis keeps nothing on disk: reachable, but flagged as a risk for queues.
    const redisCard = page.getByTestId("broker-redis");
    await redisCard.locator('[data-status="degraded"]').waitFor({ timeout: 20_000 });
    expect(await redisCard.textContent()).toContain("Persistence is off");
    await page.getByTestId("broker-offline").locator('[data-status="unreachable"]').waitFor({ timeout: 20_000 });
    await screenshot(page, "overview");

    await page.getByRole("link", { name: "Queues" }).click();
    await page.getByRole("link", { name: `redis/${listName}` }).waitFor();
    await screenshot(page, "queues");
    await page.getByRole("link", { name: `redis/${listName}` }).click();
    await page.getByTestId("queue-title").waitFor();
    expect(await page.getByTestId("queue-title").textContent()).toBe(`redis/${listName}`);
    await page.getByRole("button", { name: "15m" }).click();
    const chart = page.getByTestId("chart-depth");
    try {
      // A flat line has an empty bounding box, so wait for it in the DOM rather than "visible".
      await chart.locator("path.recharts-line-curve").waitFor({ state: "attached", timeout: 20_000 });
    } finally {
      await screenshot(page, "queue");
    }

    // The message browser and the purge's preview both show markup as text: nothing runs.
    const markup = "<img src=x onerror=alert(1)>";
    await page.getByTestId("message-browser").getByText(markup).waitFor();
    await page.getByTestId("action-purge").click();
    await page.getByRole("button", { name: "Preview (dry run)" }).click();
    await page.getByTestId("dry-run").getByText(markup).waitFor();
    expect(await page.locator(".payload img").count()).toBe(0);
    expect(dialogs).toEqual([]);

    await page.getByTestId("logout").click();
    await page.waitForURL(/\/login$/);
    const me = await page.evaluate(async () => (await fetch("/api/auth/me")).status);
    expect(me).toBe(401);
    await page.close();
  });

  it("refuses an action to a viewer and says why, in dark colours when the system asks for them", async () => {
    const adminApi = new Session(server.url, { bearer: ADMIN_TOKEN, origin: null });
    expect((await adminApi.call("POST", "/api/users", { username: "viewer1", password: "correct-horse-battery", role: "viewer" })).status).toBe(201);
    // This person's system asks for dark colours: the page follows (see the screenshot).
    const page = await browser.newPage({ colorScheme: "dark" });
    await signIn(page, server.url, "viewer1", "correct-horse-battery");
    await page.goto(`${server.url}/queues/redis/${encodeURIComponent(listName)}`);
    await page.getByTestId("message-browser").getByText("hello").waitFor();
    await screenshot(page, "queue-dark");
    const [red, green, blue] = (await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).match(/\d+/g)!.map(Number);
    expect(red + green + blue).toBeLessThan(3 * 64);
    await page.getByTestId("action-purge").click();
    await page.getByTestId("purge-confirm").fill(listName);
    await page.getByRole("button", { name: "Preview (dry run)" }).click();
    const alert = page.getByTestId("error");
    await alert.waitFor();
    expect(await alert.textContent()).toContain("Your role (viewer) may not run actions");
    expect(await redis.llen(listName)).toBe(2);
    await page.close();
  });

  it("lets the admin add a user, change their role and remove them, add and revoke a token, and read it all in the audit log", async () => {
    const page = await browser.newPage();
    await signIn(page, server.url, "admin", "correct-horse-battery");
    await page.getByRole("link", { name: "Users & tokens" }).click();
    await page.getByLabel("New username").fill("operator2");
    await page.getByLabel("New password").fill("correct-horse-battery");
    await page.getByLabel("New role").selectOption("operator");
    await page.getByRole("button", { name: "Add user" }).click();
    const userRow = page.getByRole("row").filter({ hasText: "operator2" });
    await userRow.waitFor();
    expect(await page.getByLabel("Role of operator2").inputValue()).toBe("operator");
    // The select shows what the server answers, so "viewer" here is the stored role.
    await page.getByLabel("Role of operator2").selectOption("viewer");
    await expect.poll(() => page.getByLabel("Role of operator2").inputValue(), { timeout: 10_000 }).toBe("viewer");
    // The admin cannot remove their own account; operator2 goes.
    const adminRow = page.getByRole("row").filter({ has: page.getByRole("cell", { name: "admin", exact: true }) });
    await adminRow.getByRole("button", { name: "Remove" }).click();
    await adminRow.getByRole("button", { name: "Remove admin and their tokens" }).click();
    await page.getByRole("alert").filter({ hasText: "You cannot remove your own account" }).waitFor();
    // Removal asks twice: "Keep" leaves the user, the second click removes them.
    await userRow.getByRole("button", { name: "Remove" }).click();
    await userRow.getByRole("button", { name: "Keep" }).click();
    await userRow.getByRole("button", { name: "Remove", exact: true }).waitFor();
    await userRow.getByRole("button", { name: "Remove" }).click();
    await userRow.getByRole("button", { name: "Remove operator2 and their tokens" }).click();
    await userRow.waitFor({ state: "detached" });

    // A token is shown once, works as its creator, and stops working once revoked.
    await page.getByLabel("Token name").fill("ci-reader");
    await page.getByRole("button", { name: "Create token" }).click();
    const token = (await page.getByTestId("new-token").textContent())!;
    const bearer = new Session(server.url, { bearer: token, origin: null });
    expect((await bearer.call("GET", "/api/queues")).status).toBe(200);
    const tokenRow = page.getByRole("row").filter({ hasText: "ci-reader" });
    await tokenRow.getByRole("button", { name: "Revoke" }).click();
    await tokenRow.waitFor({ state: "detached" });
    expect((await bearer.call("GET", "/api/queues")).status).toBe(401);

    await page.getByRole("link", { name: "Audit log" }).click();
    const rows = page.getByRole("row");
    await rows.filter({ hasText: "user.create" }).filter({ hasText: "operator2" }).waitFor();
    await rows.filter({ hasText: "user.role" }).filter({ hasText: "role viewer" }).waitFor();
    await rows.filter({ hasText: "user.remove" }).filter({ hasText: "operator2" }).waitFor();
    await rows.filter({ hasText: "token.create" }).filter({ hasText: "ci-reader" }).waitFor();
    await rows.filter({ hasText: "token.revoke" }).filter({ hasText: "ci-reader" }).waitFor();
    // The viewer's refused purge preview, from the test before.
    await rows.filter({ hasText: "viewer1" }).filter({ hasText: "refused" }).first().waitFor();
    await screenshot(page, "audit");
    await page.close();
  });

  it("answers an unauthenticated API call with 401", async () => {
    const context = await browser.newContext();
    const response = await context.request.get(`${server.url}/api/queues`);
    expect(response.status()).toBe(401);
    expect((await response.json()).error.code).toBe("unauthenticated");
    await context.close();
  });
});
