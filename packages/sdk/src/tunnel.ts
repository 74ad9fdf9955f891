import net from "node:net";
import { Duplex } from "node:stream";
import { runtimeRoutes } from "@svc/contract";
import { readChunks, releaseReadBuffer } from "@svc/contract/socket-reads";
import type { WebSocket } from "ws";
import { opened, runtimeWebSocket } from "./pty.ts";
import type { Transport } from "./transport.ts";

/**
 * Input waiting in the WebSocket above this makes writes wait for the network; a local connection's reading pauses
 * until it is below the low mark.
 */
const SEND_HIGH_WATER = 1024 * 1024;
const SEND_LOW_WATER = 256 * 1024;

/**
 * One tunnelled TCP connection as a Node stream. `end()` half-closes: the sandbox side reads EOF (the tunnel sends
 * an empty binary frame) and its answer still arrives; the stream ends when the sandbox side closes.
 */
export class TunnelStream extends Duplex {
  readonly #ws: WebSocket;

  constructor(ws: WebSocket) {
    super({ allowHalfOpen: true });
    this.#ws = ws;
    ws.on("message", (data: Buffer) => {
      if (!this.push(data)) ws.pause();
    });
    ws.on("close", (code, reason) => {
      if (code === 1000 || code === 1005) this.push(null);
      else this.destroy(new Error(`the tunnel closed with ${code} ${reason.toString("utf8")}`));
    });
    ws.on("error", (error) => this.destroy(error));
    // Opened paused (see Tunnel.#open): the listeners are on, so what came with the handshake can flow.
    ws.resume();
  }

  override _read(): void {
    if (this.#ws.isPaused) this.#ws.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#ws.readyState !== this.#ws.OPEN) {
      callback(new Error("the tunnel is closed"));
      return;
    }
    if (this.#ws.bufferedAmount < SEND_HIGH_WATER) {
      this.#ws.send(chunk);
      callback();
    } else this.#ws.send(chunk, (error) => callback(error ?? null));
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.#ws.readyState !== this.#ws.OPEN) {
      callback();
      return;
    }
    this.#ws.send(Buffer.alloc(0), (error) => callback(error ?? null));
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (this.#ws.readyState === this.#ws.OPEN || this.#ws.readyState === this.#ws.CONNECTING) {
      this.#ws.close(1000);
    }
    callback(error);
  }
}

/**
 * Relays an accepted local connection and its tunnel WebSocket, with backpressure both ways: bytes read locally
 * go out as binary frames (read into reused buffers, see socket-reads.ts), FIN goes out as an empty frame, and the
 * sandbox side's close (1000) ends the local connection. The WebSocket comes paused and is resumed last.
 */
function relayLocalSocket(accepted: net.Socket, ws: WebSocket): void {
  if (accepted.destroyed) {
    // The local connection went away while the tunnel opened.
    ws.close(1000);
    return;
  }
  let paused = false;
  const resumeIfDrained = () => {
    if (paused && ws.bufferedAmount < SEND_LOW_WATER) {
      paused = false;
      socket.resume();
    }
  };
  const socket = readChunks(accepted, (chunk, hold) => {
    // Bytes for a tunnel that is closing have nowhere to go: reset, as a TCP peer that is gone would.
    if (ws.readyState !== ws.OPEN) {
      socket.destroy();
      return false;
    }
    const release = hold();
    ws.send(chunk, { binary: true }, () => {
      release();
      resumeIfDrained();
    });
    if (!paused && ws.bufferedAmount > SEND_HIGH_WATER) {
      paused = true;
      return false;
    }
    return undefined;
  });
  socket.on("error", () => socket.destroy());
  socket.on("end", () => {
    if (ws.readyState === ws.OPEN) ws.send(Buffer.alloc(0));
  });
  socket.on("close", () => {
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
  });
  socket.on("drain", () => ws.resume());
  ws.on("message", (data: Buffer) => {
    if (socket.writable && !socket.write(data, () => releaseReadBuffer(data))) ws.pause();
  });
  ws.on("close", (code) => {
    if (code === 1000 || code === 1005) socket.end();
    else socket.destroy();
  });
  ws.on("error", () => socket.destroy());
  ws.resume();
}

/**
 * A TCP port inside a sandbox, reached over the tunnel WebSocket.
 *
 * @example
 * const tunnel = sandbox.tunnel(5432);
 * const server = await tunnel.listen(15432); // psql -h 127.0.0.1 -p 15432
 */
export class Tunnel {
  readonly port: number;
  readonly #transport: Transport;

  constructor(transport: Transport, port: number) {
    this.#transport = transport;
    this.port = port;
  }

  /**
   * Opens one connection to the port; rejects with a typed error when nothing listens there (502).
   *
   * @example
   * const stream = await sandbox.tunnel(6379).connect();
   * stream.end("PING\r\n");
   * for await (const chunk of stream) process.stdout.write(chunk);
   */
  async connect(): Promise<TunnelStream> {
    return new TunnelStream(await this.#open());
  }

  /**
   * Opens the tunnel WebSocket (`ws` turns Nagle's algorithm off on its connection), paused: the sandbox side may
   * send at once, and its first bytes must wait for the caller's listeners.
   */
  async #open(): Promise<WebSocket> {
    const url = this.#transport.url(runtimeRoutes.openTcpTunnel, { query: { port: this.port } });
    return opened(runtimeWebSocket(this.#transport, url, {}, { unmasked: true }), { paused: true });
  }

  /**
   * Listens on a local TCP port (default: any free one) and opens one tunnel per accepted connection.
   * Resolves with the listening server; close it to stop.
   *
   * @example
   * const server = await sandbox.tunnel(8080).listen(18080);
   * // curl http://127.0.0.1:18080/
   */
  async listen(localPort = 0, host = "127.0.0.1"): Promise<net.Server> {
    const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      socket.on("error", () => socket.destroy());
      socket.pause();
      this.#open().then(
        (ws) => relayLocalSocket(socket, ws),
        () => socket.destroy(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(localPort, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    return server;
  }
}
