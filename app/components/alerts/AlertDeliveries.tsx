"use client";
// Deliveries: each notification's attempts, the dead ones redeliverable.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../lib/api";
import { ErrorLine } from "../InlineForm";
import { formatAgo } from "../../lib/format";
import { POLL, keys } from "../../lib/queries";
import type { Delivery } from "./model";

export function AlertDeliveries({ admin }: { admin: boolean }) {
  const client = useQueryClient();
  const deliveries = useQuery({
    queryKey: keys.deliveries,
    queryFn: () => api<Delivery[]>("/api/alerts/deliveries?limit=50"),
    // While a delivery is on its way, follow it closely, as the actions page follows a running action.
    refetchInterval: (query) => (query.state.data?.some((delivery) => delivery.state === "pending") ? POLL.runningAction : POLL.list),
  });
  const redeliver = useMutation({
    mutationFn: (id: string) => api(`/api/alerts/deliveries/${id}/redeliver`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.deliveries }),
  });
  return (
    <section className="panel" aria-label="Deliveries">
      <h2>Deliveries</h2>
      <ErrorLine error={redeliver.error} />
      <table>
        <thead>
          <tr>
            <th>Event</th>
            <th>State</th>
            <th className="num">Attempts</th>
            <th>Last error</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {deliveries.data?.map((delivery) => (
            <tr key={delivery.id}>
              <td className="small">
                {delivery.event}
                <div className="muted">{delivery.summary}</div>
              </td>
              <td>
                <span className={`badge state-${delivery.state === "delivered" ? "succeeded" : delivery.state === "dead" ? "failed" : "running"}`}>{delivery.state}</span>
              </td>
              <td className="num">{delivery.attempts}</td>
              <td className="small">{delivery.lastError ?? ""}</td>
              <td className="small">{formatAgo(delivery.createdAt)}</td>
              <td>{admin && delivery.state === "dead" && <button onClick={() => redeliver.mutate(delivery.id)}>Redeliver</button>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
