import net from "node:net";
import { Duplex } from "node:stream";
import { runtimeRoutes } from "@svc/contract";
import type { WebSocket } from "ws";
import { opened, runtimeWebSocket } from "./pty.ts";
import type { Transport } from "./transport.ts";

/** Input waiting in the WebSocket above this makes writes wait for the network. */
const SEND_HIGH_WATER = 1024 * 1024;

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
    const url = this.#transport.url(runtimeRoutes.openTcpTunnel, { query: { port: this.port } });
    const ws = runtimeWebSocket(this.#transport, url, {}, { unmasked: true });
    await opened(ws);
    (ws as unknown as { _socket?: net.Socket })._socket?.setNoDelay(true);
    return new TunnelStream(ws);
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
      this.connect().then(
        (stream) => {
          stream.on("error", () => socket.destroy());
          socket.on("close", () => stream.destroy());
          socket.pipe(stream);
          stream.pipe(socket);
          socket.resume();
        },
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
