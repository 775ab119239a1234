"use client";
// One hook per resource, with a query-key factory so mutations invalidate what they change.
import { useQuery } from "@tanstack/react-query";
import { api, queueApiPath } from "./api";
import type { Action, AuditEvent, BrokerSummary, BrowsedMessage, HostDetail, HostSummary, Me, QueueDetail, QueueSnapshot } from "./types";

/** How often pages ask again; the server's own poll interval is 5 s by default. */
export const POLL = { snapshot: 5_000, chart: 15_000, runningAction: 1_000, list: 10_000 } as const;

export const keys = {
  me: ["me"] as const,
  setup: ["setup"] as const,
  brokers: ["brokers"] as const,
  queues: (filter: Record<string, string>) => ["queues", filter] as const,
  queue: (id: string) => ["queue", id] as const,
  messages: (id: string, cursor: string | null, confirmed: boolean, from: string) => ["messages", id, cursor, confirmed, from] as const,
  history: (id: string, metric: string, range: string) => ["history", id, metric, range] as const,
  actions: ["actions"] as const,
  action: (id: string) => ["action", id] as const,
  audit: ["audit"] as const,
  alerts: ["alerts"] as const,
  alertRules: ["alert-rules"] as const,
  alertChannels: ["alert-channels"] as const,
  deliveries: ["alert-deliveries"] as const,
  silences: ["alert-silences"] as const,
  hosts: ["hosts"] as const,
  host: (host: string) => ["host", host] as const,
  users: ["users"] as const,
  tokens: ["tokens"] as const,
};

export function useMe() {
  return useQuery({ queryKey: keys.me, queryFn: () => api<Me>("/api/auth/me"), retry: false, staleTime: 60_000 });
}

export function useSetupNeeded() {
  return useQuery({ queryKey: keys.setup, queryFn: () => api<{ setupNeeded: boolean }>("/api/setup") });
}

export function useBrokers() {
  return useQuery({ queryKey: keys.brokers, queryFn: () => api<BrokerSummary[]>("/api/brokers"), refetchInterval: POLL.snapshot });
}

export function useQueues(filter: Record<string, string>) {
  const params = new URLSearchParams(Object.entries(filter).filter(([, value]) => value !== ""));
  return useQuery({
    queryKey: keys.queues(filter),
    queryFn: () => api<{ items: QueueSnapshot[]; nextCursor: string | null; total: number }>(`/api/queues?${params}`),
    refetchInterval: POLL.snapshot,
    placeholderData: (previous) => previous,
  });
}

export function useQueue(id: string) {
  return useQuery({ queryKey: keys.queue(id), queryFn: () => api<QueueDetail>(queueApiPath(id)), refetchInterval: POLL.snapshot });
}

/** `from` is a query string for Kafka ("fromOffset=…" or "fromTime=…"), or empty. */
export function useMessages(id: string, enabled: boolean, cursor: string | null, confirmSideEffects: boolean, from = "") {
  return useQuery({
    queryKey: keys.messages(id, cursor, confirmSideEffects, from),
    queryFn: () =>
      api<{ sideEffects: string; items: BrowsedMessage[]; nextCursor: string | null }>(
        `${queueApiPath(id)}/messages?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : from ? `&${from}` : ""}${confirmSideEffects ? "&confirmSideEffects=true" : ""}`,
      ),
    enabled,
    // A read that has a cost is made once, when asked for, never on a timer.
    refetchInterval: confirmSideEffects ? false : POLL.list,
    refetchOnWindowFocus: !confirmSideEffects,
  });
}

export function useHistory(id: string, metric: string, range: string) {
  return useQuery({
    queryKey: keys.history(id, metric, range),
    queryFn: () => api<{ from: number; to: number; points: Array<[number, number | null]> }>(`${queueApiPath(id)}/history?metric=${metric}&range=${range}`),
    refetchInterval: range === "15m" ? POLL.snapshot : POLL.chart,
    placeholderData: (previous) => previous,
  });
}

export function useActions() {
  return useQuery({
    queryKey: keys.actions,
    queryFn: () => api<{ items: Action[]; nextCursor: string | null }>("/api/actions?limit=100"),
    refetchInterval: (query) =>
      query.state.data?.items.some((action) => action.state === "running" || action.state === "pending") ? POLL.runningAction : POLL.list,
  });
}

export function useAudit() {
  return useQuery({
    queryKey: keys.audit,
    queryFn: () => api<{ items: AuditEvent[]; nextCursor: string | null }>("/api/audit?limit=200"),
    refetchInterval: POLL.list,
  });
}

export function useHosts() {
  return useQuery({ queryKey: keys.hosts, queryFn: () => api<HostSummary[]>("/api/hosts"), refetchInterval: POLL.snapshot });
}

export function useHost(host: string) {
  return useQuery({ queryKey: keys.host(host), queryFn: () => api<HostDetail>(`/api/hosts/${encodeURIComponent(host)}`), refetchInterval: POLL.snapshot });
}
