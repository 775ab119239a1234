import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { SeriesIndex, evaluateRule, parseDuration, type AlertRule, type Series, type SeriesState } from "@/server/alerts/evaluate";
import { alertmanagerPayload, fingerprint, genericPayload, slackPayload, type AlertEvent } from "@/server/alerts/payloads";
import { newWebhookSecret, signatureHeaders } from "@/server/alerts/sign";

const rule: AlertRule = {
  id: "r1",
  name: "orders behind",
  metric: "lagSeconds",
  match: { broker: "redis" },
  op: ">",
  threshold: 300,
  forSeconds: 300,
  resolveAfterSeconds: 120,
  severity: "critical",
  enabled: true,
};

const series = (value: number | null, queue = "orders"): Series => ({ key: `redis\u001f${queue}`, labels: { broker: "redis", queue }, value });

describe("alert evaluation", () => {
  it("goes pending, fires after its for duration, holds through a blip, and resolves after the hold", () => {
    const states = new Map<string, SeriesState>();
    const at = (seconds: number) => seconds * 1000;
    expect(evaluateRule(rule, [series(400)], states, at(0))).toEqual([]);
    expect(states.get("redis\u001forders")!.state).toBe("pending");
    expect(evaluateRule(rule, [series(500)], states, at(299))).toEqual([]);
    const fired = evaluateRule(rule, [series(600)], states, at(300));
    expect(fired).toEqual([{ ruleId: "r1", seriesKey: "redis\u001forders", labels: { broker: "redis", queue: "orders" }, from: "pending", to: "firing", value: 600, at: at(300) }]);
    // Below the threshold for less than the resolve hold: still firing, nothing sent.
    expect(evaluateRule(rule, [series(10)], states, at(350))).toEqual([]);
    expect(evaluateRule(rule, [series(700)], states, at(360))).toEqual([]);
    expect(states.get("redis\u001forders")!.state).toBe("firing");
    expect(evaluateRule(rule, [series(10)], states, at(400))).toEqual([]);
    const resolved = evaluateRule(rule, [series(10)], states, at(481));
    expect(resolved.map((transition) => [transition.from, transition.to])).toEqual([["firing", "resolved"]]);
    expect(evaluateRule(rule, [series(400)], states, at(500))).toEqual([]);
    expect(states.get("redis\u001forders")!.state).toBe("pending");
  });

  it("drops a pending alert whose condition stops, and resolves one whose series disappeared", () => {
    const states = new Map<string, SeriesState>();
    evaluateRule({ ...rule, forSeconds: 0 }, [series(400, "a"), series(400, "b")], states, 0);
    expect([...states.values()].map((state) => state.state)).toEqual(["firing", "firing"]);
    const later = evaluateRule({ ...rule, forSeconds: 0, resolveAfterSeconds: 0 }, [series(400, "a")], states, 1000);
    expect(later.map((transition) => [transition.seriesKey, transition.to])).toEqual([["redis\u001fb", "resolved"]]);
    const pending = new Map<string, SeriesState>();
    evaluateRule(rule, [series(400)], pending, 0);
    evaluateRule(rule, [series(null)], pending, 1000);
    // Inactive again: nothing is kept for it.
    expect(pending.has("redis\u001forders")).toBe(false);
  });

  it("never fires a disabled rule, and indexes series by the labels rules match", () => {
    const states = new Map<string, SeriesState>();
    expect(evaluateRule({ ...rule, enabled: false, forSeconds: 0 }, [series(1e9)], states, 0)).toEqual([]);
    const index = new SeriesIndex(new Map([["lagSeconds", [series(1, "a"), series(2, "b"), { key: "k\u001fx", labels: { broker: "k", queue: "x" }, value: 3 }]]]));
    expect(index.matching("lagSeconds", { broker: "redis" }).map((entry) => entry.value)).toEqual([1, 2]);
    expect(index.matching("lagSeconds", { broker: "redis", queue: "b" }).map((entry) => entry.value)).toEqual([2]);
    expect(index.matching("lagSeconds", {}).length).toBe(3);
    expect(index.matching("depth", {})).toEqual([]);
  });

  it("reads durations and refuses what is not one", () => {
    expect(parseDuration("5m")).toBe(300);
    expect(parseDuration("30s")).toBe(30);
    expect(parseDuration("2h")).toBe(7200);
    expect(parseDuration("1d")).toBe(86400);
    for (const bad of ["5", "m", "-5m", "5 minutes", "1.5h"]) expect(parseDuration(bad)).toBeNull();
  });
});

describe("webhook signatures", () => {
  it("are accepted by the standardwebhooks reference implementation, and a changed body is not", () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({ type: "alert.firing", data: { value: 1 } });
    const headers = signatureHeaders(secret, "msg_1", body);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace("1", "2"), headers)).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe("alert payloads", () => {
  const event: AlertEvent = {
    transition: { ruleId: "r1", seriesKey: "k", labels: { broker: "redis", queue: "orders" }, from: "pending", to: "firing", value: 600, at: Date.UTC(2026, 0, 1) },
    ruleName: "orders behind",
    metric: "lagSeconds",
    severity: "critical",
    summary: "redis/orders lagSeconds is 600 (> 300)",
    url: "http://varal.example/queues/redis/orders",
  };

  it("has Alertmanager's version 4 shape with a stable fingerprint", () => {
    const payload = alertmanagerPayload(event);
    expect(payload).toMatchObject({ version: "4", status: "firing", alerts: [{ status: "firing", labels: { alertname: "orders behind", broker: "redis", queue: "orders", severity: "critical" }, startsAt: "2026-01-01T00:00:00.000Z" }] });
    expect(payload.alerts[0].fingerprint).toBe(fingerprint({ ...payload.alerts[0].labels }));
    expect(fingerprint({ b: "2", a: "1" })).toBe(fingerprint({ a: "1", b: "2" }));
    expect(alertmanagerPayload({ ...event, transition: { ...event.transition, to: "resolved" } }).alerts[0].endsAt).toBe("2026-01-01T00:00:00.000Z");
  });

  it("gives the generic webhook and Slack what they expect", () => {
    expect(genericPayload(event)).toMatchObject({ type: "alert.firing", data: { labels: { queue: "orders" }, value: 600 } });
    expect(slackPayload(event).text).toContain("*FIRING* orders behind: redis/orders lagSeconds is 600 (> 300)");
  });
});
