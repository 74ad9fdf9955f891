import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { TUNNEL_CLOSE_TEXT_FRAME } from "@svc/contract/runtime";
import { type Hold, readChunks } from "@svc/contract/socket-reads";
import { closePayload, FrameReader, frameHeader, Opcode } from "./frames.ts";

/** How long the TCP side may linger after the WebSocket closed and its FIN was sent. */
const LINGER_MS = 30_000;
/** How long the client may take to answer our close frame before its connection is destroyed. */
const CLOSE_TIMEOUT_MS = 30_000;

/** WebSocket close code when the TCP connection failed (reset, error). */
export const TUNNEL_CLOSE_TCP_ERROR = 1011;

/**
 * Relays the WebSocket of an upgraded connection (`client`, after the 101; `head` is what was read past the
 * request) and a TCP connection, verbatim, both ways, with backpressure both ways: a full client write buffer
 * pauses reading the TCP socket, a full TCP write buffer pauses reading the client. The payload of binary frames
 * goes to TCP piece by piece as it is read (frames.ts), with no copy, and both sockets are read into reused
 * buffers (socket-reads.ts).
 *
 * Ends, since a WebSocket has no half-close:
 * - TCP FIN from the sandbox side: what was read is flushed, then the WebSocket closes 1000 and the TCP side is
 *   ended once every byte the client sent before its close frame is written.
 * - An empty binary message from the client: FIN toward the sandbox (half-close); the WebSocket stays open for
 *   the answer, and closes 1000 when the sandbox side ends.
 * - A close frame from the client: FIN toward the sandbox after what was received is written; anything the
 *   sandbox sends afterwards is discarded.
 * - A text frame: the WebSocket closes 1003 and the TCP connection is reset.
 * - A TCP error (reset): the WebSocket closes 1011.
 * - A protocol error (unmasked frame, bad opcode, …): the WebSocket closes with 1002 (or 1007, 1009) at once.
 */
export function relayTunnel(upgraded: Duplex, head: Buffer, connected: Socket): void {
  let closeSent = false;
  let closeReceived = false;
  let tcpEnded = false;
  let closeTimer: NodeJS.Timeout | undefined;
  let lingerTimer: NodeJS.Timeout | undefined;
  /** The hold on the client chunk being parsed: TCP writes keep it until they complete. */
  let holdChunk: Hold | undefined;
  const client = readChunks(upgraded, (chunk, hold) => {
    holdChunk = hold;
    // A chunk holds the ends and starts of frames: its pieces go out in one write.
    tcp.cork();
    reader.push(chunk);
    tcp.uncork();
    holdChunk = undefined;
    return undefined;
  });
  const tcp = readChunks(connected, (chunk, hold) => {
    if (closeSent || !client.writable) return;
    return send(Opcode.binary, chunk, hold());
  });

  const send = (opcode: number, payload: Buffer, written?: () => void): boolean => {
    client.cork();
    client.write(frameHeader(opcode, payload.length));
    const ok = payload.length > 0 ? client.write(payload, written) : true;
    client.uncork();
    return ok;
  };
  const sendClose = (code: number | undefined, reason: string) => {
    if (closeSent) return;
    closeSent = true;
    if (!client.writable) return;
    send(Opcode.close, closePayload(code, reason));
    if (closeReceived) client.end();
    else {
      closeTimer = setTimeout(() => client.destroy(), CLOSE_TIMEOUT_MS).unref();
      // The client's close reply must be read even when reading is paused.
      client.resume();
    }
  };
  /** FIN toward the sandbox, after what was written. */
  const finishTcp = () => {
    if (tcpEnded) return;
    tcpEnded = true;
    if (!tcp.destroyed) tcp.end();
  };
  /** The WebSocket is over: FIN toward the sandbox, and whatever it still sends has nowhere to go. */
  const endTcp = () => {
    finishTcp();
    if (lingerTimer || tcp.destroyed) return;
    tcp.resume();
    lingerTimer = setTimeout(() => tcp.destroy(), LINGER_MS).unref();
  };

  tcp.setNoDelay(true);
  client.on("drain", () => tcp.resume());
  tcp.on("end", () => sendClose(1000, "eof"));
  tcp.on("error", () => {
    if (closeSent) client.destroy();
    else sendClose(TUNNEL_CLOSE_TCP_ERROR, "tcp connection failed");
  });
  tcp.on("close", () => {
    clearTimeout(lingerTimer);
    sendClose(1000, "eof");
  });
  tcp.on("drain", () => client.resume());
  // A socket that is ending emits no 'drain': reading the client resumes once the FIN is out.
  tcp.on("finish", () => client.resume());

  const reader = new FrameReader({
    data: (bytes) => {
      if (tcpEnded || !tcp.writable) return;
      if (!tcp.write(bytes, holdChunk?.())) client.pause();
    },
    messageEnd: (length) => {
      if (length === 0) finishTcp();
    },
    text: () => {
      sendClose(TUNNEL_CLOSE_TEXT_FRAME, "binary frames only");
      tcp.resetAndDestroy();
    },
    ping: (payload) => {
      if (!closeSent && client.writable) send(Opcode.pong, payload);
    },
    close: (code) => {
      closeReceived = true;
      if (closeSent) client.end();
      else sendClose(code, "");
      endTcp();
    },
    error: (code, message) => {
      sendClose(code, message);
      client.end();
      endTcp();
    },
  });

  client.on("end", () => {
    client.end();
    endTcp();
  });
  client.on("error", () => client.destroy());
  client.on("close", () => {
    clearTimeout(closeTimer);
    closeSent = true;
    endTcp();
  });
  if (head.length > 0) reader.push(head);
}
