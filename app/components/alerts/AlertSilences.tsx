"use client";
// Silences: transitions matching their labels stay out of the channels until they end (or are ended).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api } from "../../lib/api";
import { ErrorLine, InlineForm } from "../InlineForm";
import { POLL, keys } from "../../lib/queries";
import { filledLabels, labelsText, type Silence } from "./model";

const SILENCE_DURATIONS: Record<string, number> = { "1h": 3600_000, "4h": 4 * 3600_000, "1d": 24 * 3600_000, "1w": 7 * 24 * 3600_000 };

export function AlertSilences({ admin }: { admin: boolean }) {
  const client = useQueryClient();
  const silences = useQuery({ queryKey: keys.silences, queryFn: () => api<Silence[]>("/api/alerts/silences"), refetchInterval: POLL.list });
  const [silence, setSilence] = useState({ broker: "", queue: "", host: "", duration: "1h", comment: "" });
  // The firing list marks what a silence covers: a change to silences refreshes both.
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: keys.silences }), client.invalidateQueries({ queryKey: keys.alerts })]);
  const createSilence = useMutation({
    mutationFn: () =>
      api("/api/alerts/silences", {
        method: "POST",
        body: {
          match: filledLabels({ broker: silence.broker, queue: silence.queue, host: silence.host }),
          endsAt: new Date(Date.now() + SILENCE_DURATIONS[silence.duration]).toISOString(),
          comment: silence.comment || undefined,
        },
      }),
    onSuccess: refresh,
  });
  const endSilence = useMutation({
    mutationFn: (id: string) => api(`/api/alerts/silences/${id}`, { method: "DELETE" }),
    onSuccess: refresh,
  });
  return (
    <section className="panel" aria-label="Silences">
      <h2>Silences</h2>
      <ErrorLine error={createSilence.error ?? endSilence.error} />
      {silences.data?.length === 0 && <p className="muted small">No silence in force.</p>}
      {silences.data && silences.data.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Matching</th>
              <th>Ends</th>
              <th>By</th>
              <th>Why</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {silences.data.map((entry) => (
              <tr key={entry.id}>
                <td className="mono small">{labelsText(entry.match)}</td>
                <td className="small">{new Date(entry.endsAt).toLocaleString()}</td>
                <td>{entry.createdBy}</td>
                <td className="small">{entry.comment ?? ""}</td>
                <td>{admin && <button onClick={() => endSilence.mutate(entry.id)}>End now</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {admin && (
        <InlineForm onSubmit={() => createSilence.mutate()}>
          <input aria-label="Silence broker" placeholder="broker" size={10} value={silence.broker} onChange={(event) => setSilence({ ...silence, broker: event.target.value })} />
          <input aria-label="Silence queue" placeholder="queue" size={14} value={silence.queue} onChange={(event) => setSilence({ ...silence, queue: event.target.value })} />
          <input aria-label="Silence host" placeholder="host" size={10} value={silence.host} onChange={(event) => setSilence({ ...silence, host: event.target.value })} />
          <select aria-label="Silence for" value={silence.duration} onChange={(event) => setSilence({ ...silence, duration: event.target.value })}>
            {Object.keys(SILENCE_DURATIONS).map((duration) => (
              <option key={duration}>{duration}</option>
            ))}
          </select>
          <input aria-label="Silence comment" placeholder="why" size={20} value={silence.comment} onChange={(event) => setSilence({ ...silence, comment: event.target.value })} />
          <button className="primary" type="submit" disabled={createSilence.isPending}>
            Silence
          </button>
        </InlineForm>
      )}
    </section>
  );
}
