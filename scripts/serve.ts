// Varal's HTTP server: Next.js for everything, with a fast lane for the hottest reads.
// The dashboard polls GET /api/queues and GET /api/brokers; both are answered from the
// snapshot cache, so Next.js's router (about 2-3 ms of CPU per request here) would be
// most of their cost. The fast lane hands them to the very same route handlers, with
// the same authentication and validation, before the router; everything else goes to Next.
import http from "node:http";
import next from "next";
import { PEER_HEADER } from "../server/auth/authenticate";
import { loadConfig } from "../server/config/load";
import { GET as getBrokers } from "../app/api/brokers/route";
import { GET as getQueues } from "../app/api/queues/route";

type RouteHandler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

const FAST_LANE = new Map<string, RouteHandler>([
  ["/api/queues", getQueues],
  ["/api/brokers", getBrokers],
]);

function toRequest(req: http.IncomingMessage, url: URL): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return new Request(url, { method: req.method, headers });
}

async function send(res: http.ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => res.setHeader(name, value));
  // The same security headers next.config.js sets on every other response.
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Cache-Control", "no-store");
  res.end(Buffer.from(await response.arrayBuffer()));
}

async function main(): Promise<void> {
  // A wrong configuration stops start-up here, naming the file, the field and the reason
  // (main's catch prints it). Inside Next.js's instrumentation hook the same error would
  // only be logged, and the server would serve without its poll loops.
  loadConfig();
  const port = Number(process.env.PORT ?? 3000);
  const hostname = process.env.HOSTNAME ?? "0.0.0.0";
  const app = next({ dev: false, hostname, port });
  const handle = app.getRequestHandler();
  await app.prepare();
  const server = http.createServer((req, res) => {
    // The address this connection comes from, set here so that no client can claim one.
    req.headers[PEER_HEADER] = req.socket.remoteAddress ?? "unknown";
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
    const fast = req.method === "GET" ? FAST_LANE.get(url.pathname) : undefined;
    if (!fast) {
      void handle(req, res);
      return;
    }
    fast(toRequest(req, url), { params: Promise.resolve({}) })
      .then((response) => send(res, response))
      .catch((error) => {
        console.error("varal: fast lane failed:", error);
        res.statusCode = 500;
        res.end();
      });
  });
  // Idle keep-alive connections are closed by the client first (browsers and Node's fetch
  // keep them a few seconds): a server closing one as a request arrives on it fails that
  // request with "other side closed".
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.listen(port, hostname, () => console.log(`varal: serving on http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}`));
  const stop = () => server.close(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
