// An operator in Chromium on Kafka: a group's partitions with lag and the rule behind each
// status, an offset reset previewed and confirmed, and a DLQ topic's records shown as
// inert text, then redriven.
import crypto from "node:crypto";
import { Kafka, logLevel, type Admin } from "kafkajs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { KafkaWire } from "@/server/brokers/kafka/wire";
import { launchBrowser, screenshot, signIn } from "../support/browser";
import { Session, startServer, type RunningServer } from "../support/server";

const ADMIN_TOKEN = crypto.randomBytes(24).toString("hex");
const p = `e2e-k-${crypto.randomBytes(3).toString("hex")}-`;
const topic = `${p}orders`;
const dlq = `${topic}.DLQ`;
const group = `${p}billing`;
const kafka = new Kafka({ clientId: "varal-e2e", brokers: ["127.0.0.1:9092"], logLevel: logLevel.NOTHING });
const wire = new KafkaWire(kafka);
let admin: Admin;
let server: RunningServer;
let browser: Browser;

async function committed(): Promise<string[]> {
  return (await admin.fetchOffsets({ groupId: group, topics: [topic] }))[0].partitions.sort((a, b) => a.partition - b.partition).map((entry) => entry.offset);
}

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }, { topic: dlq, numPartitions: 1 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: Array.from({ length: 30 }, (_, i) => ({ value: `order ${i}`, partition: i % 2 })) });
  await producer.send({ topic: dlq, messages: [{ value: '<img src=x onerror="window.pwned=1">', headers: { "x-original-topic": topic, "x-exception-message": "<b>declined</b>" } }] });
  await producer.disconnect();
  await wire.commit(group, topic, [
    { partition: 0, offset: 3 },
    { partition: 1, offset: 10 },
  ]);
  server = await startServer({
    scratch: inject("scratch"),
    env: { VARAL_ADMIN_TOKEN: ADMIN_TOKEN },
    config: "pollIntervalMs: 1000\nbrokers:\n  - { name: kafka, kind: kafka, statusWindow: 3 }\n",
  });
  const adminSession = new Session(server.url, { bearer: ADMIN_TOKEN, origin: null });
  expect((await adminSession.call("POST", "/api/users", { username: "operator1", password: "correct-horse-battery", role: "operator" })).status).toBe(201);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await admin.deleteTopics({ topics: [topic, dlq] }).catch(() => undefined);
  await admin.deleteGroups([group]).catch(() => undefined);
  await admin.disconnect();
  await wire.disconnect();
});

describe("Kafka in the dashboard", () => {
  it("shows a group's partitions with the rule behind its status, and resets its offsets after a preview", async () => {
    const page = await browser.newPage();
    await signIn(page, server.url, "operator1", "correct-horse-battery");
    await page.goto(`${server.url}/queues/kafka/${encodeURIComponent(`${group}@${topic}`)}`);
    const rows = page.getByTestId("kafka-partition");
    await rows.nth(1).waitFor();
    // Nothing moves and nobody owns the partitions: after a window of polls, STOP.
    await page.getByTestId("kafka-partitions").getByText("STOP").first().waitFor({ timeout: 20_000 });
    // Lag: 15 records per partition, committed at 3 and at 10.
    expect(await rows.nth(0).locator("td").nth(4).textContent()).toBe("12");
    expect(await rows.nth(1).locator("td").nth(4).textContent()).toBe("5");
    expect(await page.getByText("no live member owns the partition").first().isVisible()).toBe(true);
    await screenshot(page, "kafka-group");

    await page.getByTestId("action-offset-reset").click();
    await page.getByTestId("reset-to").selectOption("latest");
    await page.getByRole("button", { name: "Preview (dry run)" }).click();
    await page.getByTestId("offset-move").first().waitFor();
    expect(await page.getByTestId("dry-run").textContent()).toContain("skips 17 record(s)");
    expect(await committed()).toEqual(["3", "10"]);
    await page.getByTestId("action-confirm").click();
    await page.getByRole("link", { name: "Actions", exact: true }).last().click();
    await page.locator("[data-testid^=action-row-]").first().locator(".state-succeeded").waitFor({ timeout: 20_000 });
    expect(await committed()).toEqual(["15", "15"]);
    await page.close();
  });

  it("shows a DLQ topic's records as inert text and redrives them to the topic their header names", async () => {
    const page = await browser.newPage();
    await signIn(page, server.url, "operator1", "correct-horse-battery");
    await page.goto(`${server.url}/queues/kafka/${encodeURIComponent(`varal-redrive@${dlq}`)}`);
    const row = page.getByTestId("message-row");
    await row.first().waitFor({ timeout: 20_000 });
    const text = await page.getByTestId("message-browser").textContent();
    expect(text).toContain('<img src=x onerror="window.pwned=1">');
    expect(text).toContain("<b>declined</b>");
    expect(await page.locator("[data-testid=message-browser] img, [data-testid=message-browser] b").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await screenshot(page, "kafka-dlq");

    await page.getByTestId("action-redrive").click();
    await page.getByRole("button", { name: "Preview (dry run)" }).click();
    await page.getByTestId("dry-run").getByText("Would affect 1 message(s).").waitFor();
    await page.getByTestId("action-confirm").click();
    await page.getByRole("link", { name: "Actions", exact: true }).last().click();
    await page.locator("[data-testid^=action-row-]").first().locator(".state-succeeded").waitFor({ timeout: 20_000 });
    const ends = await admin.fetchTopicOffsets(topic);
    expect(ends.reduce((sum, partition) => sum + Number(partition.high), 0)).toBe(31);
    await page.close();
  });
});
