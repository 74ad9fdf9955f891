import type { IncomingMessage } from "node:http";
import { WebSocket } from "ws";
import type { DaemonTestClient, RequestOptions } from "./testing.ts";

export type WsOpenResult =
  | { ok: true; ws: WebSocket }
  | { ok: false; status: number; body: string; json: { code?: string; error?: string } | undefined };

/** Opens a WebSocket to the daemon, signed like the proxy would; a refused upgrade gives its status and body. */
export function openWs(
  client: DaemonTestClient,
  pathAndQuery: string,
  options: RequestOptions = {},
): Promise<WsOpenResult> {
  const url = client.baseUrl.replace(/^http/, "ws") + pathAndQuery;
  const ws = new WebSocket(url, { headers: client.headersFor("GET", pathAndQuery, options) });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ ok: true, ws }));
    ws.once("unexpected-response", (_req, res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let json: { code?: string } | undefined;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        resolve({ ok: false, status: res.statusCode ?? 0, body, json });
      });
    });
    ws.once("error", reject);
  });
}

/** Like {@link openWs}, but a refusal is an error. */
export async function mustOpenWs(
  client: DaemonTestClient,
  pathAndQuery: string,
  options: RequestOptions = {},
): Promise<WebSocket> {
  const result = await openWs(client, pathAndQuery, options);
  if (!result.ok) throw new Error(`upgrade refused: ${result.status} ${result.body}`);
  return result.ws;
}

/** Resolves with the close code and reason of a WebSocket. */
export function closed(ws: WebSocket): Promise<{ code: number; reason: string }> {
  if (ws.readyState === ws.CLOSED) return Promise.resolve({ code: 1006, reason: "" });
  return new Promise((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString("utf8") })),
  );
}
