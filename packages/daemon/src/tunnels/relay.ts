import type { Socket } from "node:net";
import { TUNNEL_CLOSE_TEXT_FRAME } from "@svc/contract/runtime";
import type { WebSocket } from "ws";

/** Bytes waiting in the WebSocket's send buffer above which the TCP side is paused; it resumes below the low mark. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;
/** How long the TCP side may linger after the WebSocket closed and its FIN was sent. */
const LINGER_MS = 30_000;

/** WebSocket close code when the TCP connection failed (reset, error). */
export const TUNNEL_CLOSE_TCP_ERROR = 1011;

/**
 * Relays a WebSocket and a TCP connection, verbatim, both ways, with backpressure both ways: a full WebSocket send
 * buffer pauses reading the TCP socket, a full TCP write buffer pauses reading the WebSocket.
 *
 * Ends, since a WebSocket has no half-close:
 * - TCP FIN from the sandbox side: what was read is flushed, then the WebSocket closes 1000 and the TCP side is
 *   ended once every byte the client sent before its close frame is written.
 * - An empty binary frame from the client: FIN toward the sandbox (half-close); the WebSocket stays open for the
 *   answer, and closes 1000 when the sandbox side ends.
 * - A close frame from the client: FIN toward the sandbox after what was received is written; anything the
 *   sandbox sends afterwards is discarded.
 * - A text frame: the WebSocket closes 1003 and the TCP connection is reset.
 * - A TCP error (reset): the WebSocket closes 1011.
 */
export function relayTunnel(ws: WebSocket, tcp: Socket): void {
  let paused = false;
  tcp.setNoDelay(true);

  const resumeIfDrained = () => {
    if (paused && ws.bufferedAmount < LOW_WATER) {
      paused = false;
      tcp.resume();
    }
  };
  tcp.on("data", (chunk: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    ws.send(chunk, { binary: true }, resumeIfDrained);
    if (!paused && ws.bufferedAmount > HIGH_WATER) {
      paused = true;
      tcp.pause();
    }
  });
  tcp.on("end", () => {
    // Queued frames go out before the close frame; the client's close reply must be read even when paused.
    if (ws.readyState === ws.OPEN) ws.close(1000, "eof");
    ws.resume();
  });
  tcp.on("error", () => {
    if (ws.readyState === ws.OPEN) ws.close(TUNNEL_CLOSE_TCP_ERROR, "tcp connection failed");
    else ws.terminate();
  });
  tcp.on("close", () => {
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000, "eof");
  });

  tcp.on("drain", () => ws.resume());
  // A socket that is ending emits no 'drain': reading the WebSocket resumes once the FIN is out.
  tcp.on("finish", () => ws.resume());
  ws.on("message", (data, isBinary) => {
    if (!isBinary) {
      ws.close(TUNNEL_CLOSE_TEXT_FRAME, "binary frames only");
      tcp.resetAndDestroy();
      return;
    }
    const chunk = data as Buffer;
    if (chunk.length === 0) {
      tcp.end();
      return;
    }
    if (tcp.writable && !tcp.write(chunk)) ws.pause();
  });
  ws.on("error", () => ws.terminate());
  ws.on("close", () => {
    ws.resume();
    if (tcp.destroyed) return;
    tcp.end();
    // Whatever the sandbox still sends has nowhere to go.
    tcp.resume();
    setTimeout(() => tcp.destroy(), LINGER_MS).unref();
  });
}
