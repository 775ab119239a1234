"use client";
// Channels: where notifications go (signed webhook, Alertmanager, Slack), each with a test button;
// a channel no rule sends to can be deleted.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/api";
import { ErrorLine, InlineForm } from "../InlineForm";
import { keys } from "../../lib/queries";
import type { Channel } from "./model";

export function AlertChannels({ admin }: { admin: boolean }) {
  const client = useQueryClient();
  const channels = useQuery({ queryKey: keys.alertChannels, queryFn: () => api<Channel[]>("/api/alerts/channels") });
  const [channel, setChannel] = useState({ name: "", kind: "webhook", url: "", secret: "" });
  const changed = () => {
    for (const key of [keys.alertChannels, keys.deliveries]) void client.invalidateQueries({ queryKey: key });
  };
  const createChannel = useMutation({
    mutationFn: () => api("/api/alerts/channels", { method: "POST", body: { ...channel, secret: channel.secret || undefined } }),
    onSuccess: changed,
  });
  const testChannel = useMutation({ mutationFn: (id: string) => api(`/api/alerts/channels/${id}/test`, { method: "POST" }), onSuccess: changed });
  const deleteChannel = useMutation({ mutationFn: (id: string) => api(`/api/alerts/channels/${id}`, { method: "DELETE" }), onSuccess: changed });
  const error = createChannel.error ?? testChannel.error ?? deleteChannel.error;
  return (
    <section className="panel" aria-label="Channels">
      <h2>Channels</h2>
      <ErrorLine error={error} />
      <table>
        <thead>
          <tr>
            <th>Name</th>
            <th>Kind</th>
            <th>URL</th>
            <th>Signed</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {channels.data?.map((entry) => (
            <tr key={entry.id}>
              <td>{entry.name}</td>
              <td>{entry.kind}</td>
              <td className="mono small">{entry.url}</td>
              <td>{entry.hasSecret ? "yes" : "—"}</td>
              <td>
                {admin && (
                  <span className="row">
                    <button onClick={() => testChannel.mutate(entry.id)}>Send a test</button>
                    <button onClick={() => deleteChannel.mutate(entry.id)}>Delete</button>
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {admin && (
        <InlineForm onSubmit={() => createChannel.mutate()}>
          <input aria-label="Channel name" placeholder="name" value={channel.name} onChange={(event) => setChannel({ ...channel, name: event.target.value })} />
          <select aria-label="Channel kind" value={channel.kind} onChange={(event) => setChannel({ ...channel, kind: event.target.value })}>
            <option value="webhook">signed JSON webhook</option>
            <option value="alertmanager">Alertmanager webhook</option>
            <option value="slack">Slack incoming webhook</option>
          </select>
          <input aria-label="Channel URL" placeholder="https://…" size={32} value={channel.url} onChange={(event) => setChannel({ ...channel, url: event.target.value })} />
          <input aria-label="Channel secret" placeholder="secret (whsec_…)" type="password" value={channel.secret} onChange={(event) => setChannel({ ...channel, secret: event.target.value })} />
          <button className="primary" type="submit" disabled={createChannel.isPending}>
            Add channel
          </button>
        </InlineForm>
      )}
    </section>
  );
}
