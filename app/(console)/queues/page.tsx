"use client";
// Every queue, sortable and filterable. Rows are virtualised so thousands stay smooth.
import { useVirtualizer } from "@tanstack/react-virtual";
import Link from "next/link";
import { useRef, useState } from "react";
import { StatusBadge } from "../../components/StatusBadge";
import { queuePagePath } from "../../lib/api";
import { formatCount, formatDuration, formatRate } from "../../lib/format";
import { useBrokers, useQueues } from "../../lib/queries";

// Names sort A to Z; every other column worst (largest) first, as the API orders them.
const COLUMNS = [
  { sort: "name", label: "Queue", numeric: false },
  { sort: "trouble", label: "Status", numeric: false },
  { sort: "depth", label: "Depth", numeric: true },
  { sort: "lagSeconds", label: "Lag", numeric: true },
  { sort: "rateIn", label: "In", numeric: true },
  { sort: "rateOut", label: "Out", numeric: true },
  { sort: "dlqDepth", label: "DLQ", numeric: true },
  { sort: "lagMessages", label: "Lag (msgs)", numeric: true },
];

export default function QueuesPage() {
  const [sort, setSort] = useState("trouble");
  const [q, setQ] = useState("");
  const [broker, setBroker] = useState("");
  const [status, setStatus] = useState("");
  const brokers = useBrokers();
  const queues = useQueues({ sort, q, broker, status, limit: "5000" });
  const items = queues.data?.items ?? [];
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: items.length, getScrollElement: () => scroller.current, estimateSize: () => 36, overscan: 12 });

  return (
    <>
      <h1>Queues</h1>
      <div className="row" style={{ marginBottom: 10 }}>
        <input placeholder="Filter by name" value={q} onChange={(event) => setQ(event.target.value)} aria-label="Filter by name" />
        <select value={broker} onChange={(event) => setBroker(event.target.value)} aria-label="Broker">
          <option value="">All brokers</option>
          {brokers.data?.map((entry) => (
            <option key={entry.name} value={entry.name}>
              {entry.name}
            </option>
          ))}
        </select>
        <select value={status} onChange={(event) => setStatus(event.target.value)} aria-label="Status">
          <option value="">Any status</option>
          {["ok", "warning", "stalled", "stopped", "unreachable"].map((value) => (
            <option key={value}>{value}</option>
          ))}
        </select>
        <span className="muted small">{queues.data ? `${queues.data.total} queue(s)` : "Loading…"}</span>
      </div>
      {queues.error && <div className="error">{queues.error.message}</div>}
      <div className="vtable" role="table" aria-rowcount={items.length}>
        <div className="head" role="row">
          {COLUMNS.map((column) => (
            <button
              key={column.sort}
              role="columnheader"
              className={column.numeric ? "num" : undefined}
              aria-sort={sort === column.sort ? (column.sort === "name" ? "ascending" : "descending") : undefined}
              onClick={() => setSort(column.sort)}
            >
              {column.label}
              {sort === column.sort && <span aria-hidden="true">{column.sort === "name" ? " ↑" : " ↓"}</span>}
            </button>
          ))}
        </div>
        <div className="scroller" ref={scroller}>
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((row) => {
              const queue = items[row.index];
              return (
                <div key={queue.id} className="vrow" role="row" style={{ position: "absolute", top: 0, left: 0, right: 0, transform: `translateY(${row.start}px)` }}>
                  <div title={queue.id}>
                    <Link href={queuePagePath(queue.id)}>{queue.id}</Link>
                  </div>
                  <div>
                    <StatusBadge status={queue.status} title={queue.statusReason} />
                  </div>
                  <div className="num">{formatCount(queue.depth)}</div>
                  <div className="num">{formatDuration(queue.lagSeconds)}</div>
                  <div className="num">{formatRate(queue.rateIn)}</div>
                  <div className="num">{formatRate(queue.rateOut)}</div>
                  <div className="num">{formatCount(queue.dlq?.depth)}</div>
                  <div className="num">{formatCount(queue.lagMessages)}</div>
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </>
  );
}
