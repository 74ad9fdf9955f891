import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { WebSocket } from "ws";
import type { DaemonTestClient, RequestOptions } from "./testing.ts";

export type WsOpenResult =
  | { ok: true; ws: WebSocket }
  | { ok: false; status: number; body: string; json: { code?: string; error?: string } | undefined };

/**
 * Opens a WebSocket to the daemon, signed like the proxy would; a refused upgrade gives its status and body.
 * `onOpen` runs as it opens, before any message can arrive (one sent at once may come with the handshake).
 */
export function openWs(
  client: DaemonTestClient,
  pathAndQuery: string,
  options: RequestOptions = {},
  onOpen?: (ws: WebSocket) => void,
): Promise<WsOpenResult> {
  const url = client.baseUrl.replace(/^http/, "ws") + pathAndQuery;
  const ws = new WebSocket(url, { headers: client.headersFor("GET", pathAndQuery, options) });
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      onOpen?.(ws);
      resolve({ ok: true, ws });
    });
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
  onOpen?: (ws: WebSocket) => void,
): Promise<WebSocket> {
  const result = await openWs(client, pathAndQuery, options, onOpen);
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

/** A frame as a client sends it (RFC 6455 §5.2): masked with `mask` (random by default; zeros skip masking). */
export function clientFrame(
  opcode: number,
  payload: Buffer,
  { fin = true, mask = randomBytes(4) }: { fin?: boolean; mask?: Buffer } = {},
): Buffer {
  const length = payload.length;
  const extended = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const header = Buffer.alloc(2 + extended + 4);
  header[0] = (fin ? 0x80 : 0) | opcode;
  header[1] = 0x80 | (extended === 0 ? length : extended === 2 ? 126 : 127);
  if (extended === 2) header.writeUInt16BE(length, 2);
  if (extended === 8) header.writeBigUInt64BE(BigInt(length), 2);
  mask.copy(header, 2 + extended);
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i] ^= mask[i & 3];
  return Buffer.concat([header, masked]);
}

/** Splits what a server sent (unmasked frames) into frames; `rest` is an incomplete frame at the end. */
export function serverFrames(bytes: Buffer): { frames: { opcode: number; payload: Buffer }[]; rest: Buffer } {
  const frames: { opcode: number; payload: Buffer }[] = [];
  let at = 0;
  while (bytes.length - at >= 2) {
    const length7 = bytes[at + 1] & 0x7f;
    const headerLength = length7 === 126 ? 4 : length7 === 127 ? 10 : 2;
    if (bytes.length - at < headerLength) break;
    const length =
      length7 === 126
        ? bytes.readUInt16BE(at + 2)
        : length7 === 127
          ? Number(bytes.readBigUInt64BE(at + 2))
          : length7;
    if (bytes.length - at < headerLength + length) break;
    frames.push({
      opcode: bytes[at] & 0x0f,
      payload: bytes.subarray(at + headerLength, at + headerLength + length),
    });
    at += headerLength + length;
  }
  return { frames, rest: bytes.subarray(at) };
}
