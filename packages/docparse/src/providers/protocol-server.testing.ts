import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the protocol server received. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** One scripted answer: status, headers and a JSON body (or raw text). */
export interface ScriptedAnswer {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  text?: string;
  /** Close the connection without answering (a network error for the client). */
  hangUp?: boolean;
}

/**
 * A loopback HTTP server that answers each request with the next scripted answer (the last one repeats) and
 * records what it received. It stands in for a provider's API so the tests check our adapter's requests and its
 * handling of the protocol's answers; no model is involved.
 */
export async function startProtocolServer(
  script: ScriptedAnswer[] | ((request: ReceivedRequest) => ScriptedAnswer),
) {
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // recorded as text
      }
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      received.push(request);
      const answer =
        typeof script === "function"
          ? script(request)
          : script[Math.min(received.length - 1, script.length - 1)];
      if (answer.hangUp) {
        req.socket.destroy();
        return;
      }
      const payload = answer.text ?? JSON.stringify(answer.json ?? {});
      res.writeHead(answer.status ?? 200, { "content-type": "application/json", ...answer.headers });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
