"use client";
// The messages of a queue, oldest or first-in-line first: for dead letters, with why they failed.
import { useState } from "react";
import { ApiError } from "../lib/api";
import { formatAgo } from "../lib/format";
import { useMessages } from "../lib/queries";
import type { QueueDetail } from "../lib/types";
import { Payload } from "./Payload";

export function MessageBrowser({ queue, onPick }: { queue: QueueDetail; onPick?: (id: string) => void }) {
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [confirmed, setConfirmed] = useState(false);
  const [start, setStart] = useState({ mode: "next", value: "" });
  const [from, setFrom] = useState("");
  const cursor = cursors[cursors.length - 1];
  const messages = useMessages(queue.id, queue.browsable, cursor, confirmed, from);
  const applyStart = () => {
    setCursors([null]);
    if (start.mode === "offset") setFrom(`fromOffset=${encodeURIComponent(start.value)}`);
    else if (start.mode === "time") setFrom(`fromTime=${encodeURIComponent(new Date(start.value).toISOString())}`);
    else setFrom("");
  };
  const deadLetters = queue.facts.deadLetterOf !== undefined || queue.sources.length > 0;
  const costly = messages.error instanceof ApiError && messages.error.status === 409 && !confirmed;

  return (
    <div data-testid="message-browser">
      {queue.kind === "kafka" && (
        <div className="row small" style={{ marginBottom: 8 }}>
          Read from
          <select value={start.mode} onChange={(event) => setStart({ mode: event.target.value, value: "" })} data-testid="browse-from">
            <option value="next">where the group reads next</option>
            <option value="offset">an offset</option>
            <option value="time">a time</option>
          </select>
          {start.mode === "offset" && <input value={start.value} onChange={(event) => setStart({ ...start, value: event.target.value })} size={10} placeholder="offset" data-testid="browse-offset" />}
          {start.mode === "time" && <input type="datetime-local" value={start.value} onChange={(event) => setStart({ ...start, value: event.target.value })} />}
          <button onClick={applyStart} disabled={start.mode !== "next" && start.value === ""} data-testid="browse-apply">
            Read
          </button>
        </div>
      )}
      {costly ? (
        <div className="note" data-testid="side-effect-warning">
          <p>{messages.error!.message}</p>
          <button onClick={() => setConfirmed(true)}>Read anyway</button>
        </div>
      ) : (
        messages.error && <div className="error">{messages.error.message}</div>
      )}
      {messages.data?.sideEffects === "none" && <p className="small muted">Reading these messages changes nothing on the broker.</p>}
      {messages.data && messages.data.sideEffects !== "none" && (
        <p className="small muted">This read raised the messages&apos; {messages.data.sideEffects.replace("-", " ")}.</p>
      )}
      {messages.data?.items.length === 0 && <p className="muted">No messages.</p>}
      {messages.data && messages.data.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th>Id</th>
              {queue.type === "priority" && <th className="num">Priority</th>}
              <th className="num">Attempts</th>
              {deadLetters && <th>Failure</th>}
              <th style={{ width: "45%" }}>Payload</th>
            </tr>
          </thead>
          <tbody>
            {messages.data.items.map((message) => (
              <tr key={message.id} data-testid="message-row">
                <td className="mono small">
                  {message.id}
                  {message.enqueuedAt && <div className="muted">enqueued {formatAgo(message.enqueuedAt)}</div>}
                  {onPick && (
                    <div>
                      <button className="small" onClick={() => onPick(message.id)}>
                        Re-prioritise
                      </button>
                    </div>
                  )}
                </td>
                {queue.type === "priority" && <td className="num">{message.priority ?? "—"}</td>}
                <td className="num">{message.attempts ?? "—"}</td>
                {deadLetters && (
                  <td className="small">
                    {message.reason ?? "—"}
                    {message.lastFailureAt && <div className="muted">last {formatAgo(message.lastFailureAt)}</div>}
                    {message.firstFailureAt && message.firstFailureAt !== message.lastFailureAt && (
                      <div className="muted">first {formatAgo(message.firstFailureAt)}</div>
                    )}
                  </td>
                )}
                <td>
                  <Payload preview={message.payload} />
                  {Object.keys(message.headers).length > 0 && (
                    <details className="small">
                      <summary>Headers</summary>
                      <pre className="payload">{JSON.stringify(message.headers, null, 2)}</pre>
                    </details>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row" style={{ marginTop: 8 }}>
        <button disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <button disabled={!messages.data?.nextCursor} onClick={() => setCursors([...cursors, messages.data!.nextCursor])}>
          Next
        </button>
      </div>
    </div>
  );
}
