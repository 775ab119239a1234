// A local HTTP server standing in for an on-call tool: records what it receives and can be
// told to fail, redirect or hang.
import http from "node:http";
import type net from "node:net";

export interface Received {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Behaviour = "ok" | "fail" | "redirect" | "hang";

export async function startReceiver(): Promise<{ url: string; received: Received[]; behave(next: Behaviour, times?: number): void; close(): Promise<void> }> {
  const received: Received[] = [];
  let behaviour: Behaviour = "ok";
  let remaining = Infinity;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      received.push({ at: Date.now(), headers: request.headers, body });
      const now: Behaviour = remaining > 0 ? behaviour : "ok";
      remaining--;
      if (now === "hang") return;
      if (now === "fail") return void response.writeHead(500).end("down");
      if (now === "redirect") return void response.writeHead(302, { location: "http://127.0.0.1:9/elsewhere" }).end();
      response.writeHead(204).end();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`,
    received,
    behave(next, times = Infinity) {
      behaviour = next;
      remaining = times;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
