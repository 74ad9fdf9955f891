import {
  type CreatePtySessionRequest,
  decodePtyServerFrame,
  encodePtyInput,
  encodePtyReady,
  encodePtyResize,
  PTY_CLOSE_SESSION_DELETED,
  PTY_TOKEN_HEADER,
  type PtySession,
  parsePtyExitCloseReason,
  runtimeRoutes,
} from "@svc/contract";
import { WebSocket } from "ws";
import { ClientError, ConnectionError, errorFromResponse } from "./errors.ts";
import type { Transport } from "./transport.ts";

/** Options of `sandbox.pty()`. */
export interface PtyOptions {
  /** The program; default `sh`. */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  workingDir?: string;
  /** Default 24 (clamped to 1..500). */
  rows?: number;
  /** Default 80 (clamped to 1..1000). */
  cols?: number;
  /** Called with every chunk of output (also available through `onData`). */
  onData?: (data: Uint8Array) => void;
}

/** The WebSocket URL and headers of a runtime route (the transport's credential and sandbox header). */
export function runtimeWebSocket(
  transport: Transport,
  url: string,
  headers: Record<string, string> = {},
  options: { unmasked?: boolean } = {},
): WebSocket {
  return new WebSocket(url.replace(/^http/, "ws"), {
    headers: { ...transport.headers(), ...headers },
    perMessageDeflate: false,
    // A zero mask makes ws skip masking (and the server skip unmasking) for bulk data. Masking protects caching
    // intermediaries from payloads a web page controls; this client is not a browser.
    ...(options.unmasked ? { generateMask: (mask: Buffer) => void mask.fill(0) } : {}),
  });
}

/** Resolves when the WebSocket is open; a refused upgrade rejects with the server's typed error. */
export function opened(ws: WebSocket, options: { paused?: boolean } = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      // A message that came with the handshake is emitted before a caller awaiting this could listen: paused, it
      // waits for the caller's resume().
      if (options.paused) ws.pause();
      resolve(ws);
    });
    ws.once("unexpected-response", (_req, res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the error keeps the text
        }
        reject(errorFromResponse(res.statusCode ?? 0, body));
      });
    });
    ws.once("error", (error) => reject(new ConnectionError(`WebSocket failed: ${error.message}`)));
  });
}

/**
 * An interactive terminal in a sandbox: a PTY session and the WebSocket attached to it. The session outlives the
 * WebSocket: `close()` detaches (the program keeps running), `reconnect()` attaches again and receives the recent
 * output, `kill()` ends the session.
 *
 * @example
 * const term = await sandbox.pty({ command: "bash", rows: 40, cols: 120 });
 * term.onData((data) => process.stdout.write(data));
 * term.write("ls -la; exit 3\n");
 * const code = await term.exited; // 3
 */
export class PtyTerminal {
  readonly sessionId: string;
  readonly token: string;
  /** Resolves with the exit code of the program (128 + n for a signal n). */
  readonly exited: Promise<number>;
  readonly #transport: Transport;
  readonly #listeners = new Set<(data: Uint8Array) => void>();
  #ws: WebSocket | undefined;
  #resolveExit!: (code: number) => void;
  #rejectExit!: (error: Error) => void;
  #exitCode: number | undefined;

  constructor(transport: Transport, sessionId: string, token: string) {
    this.#transport = transport;
    this.sessionId = sessionId;
    this.token = token;
    this.exited = new Promise((resolve, reject) => {
      this.#resolveExit = resolve;
      this.#rejectExit = reject;
    });
    this.exited.catch(() => {});
  }

  /**
   * Attaches a WebSocket (again): the server replays recent output, then streams live output.
   *
   * @example
   * await term.reconnect();
   */
  async reconnect(): Promise<void> {
    this.#ws?.terminate();
    const url = this.#transport.url(runtimeRoutes.connectPty, { params: { session_id: this.sessionId } });
    const ws = runtimeWebSocket(this.#transport, url, { [PTY_TOKEN_HEADER]: this.token });
    this.#ws = ws;
    ws.on("message", (data: Buffer) => {
      const decoded = decodePtyServerFrame(data);
      if (!decoded.ok) return;
      if (decoded.frame.type === "output") {
        for (const listener of this.#listeners) listener(decoded.frame.data);
      } else this.#exitCode = decoded.frame.code;
    });
    ws.on("close", (code, reason) => {
      const exit = this.#exitCode ?? parsePtyExitCloseReason(reason.toString("utf8"));
      if (exit !== undefined) this.#resolveExit(exit);
      else if (code === PTY_CLOSE_SESSION_DELETED)
        this.#rejectExit(new ClientError("the PTY session was deleted", "SESSION_DELETED"));
    });
    await opened(ws);
    ws.send(encodePtyReady());
  }

  /**
   * Calls `listener` with each chunk of output; returns a function that removes it.
   *
   * @example
   * const off = term.onData((data) => process.stdout.write(data));
   */
  onData(listener: (data: Uint8Array) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Sends input (keystrokes, pasted text) to the program.
   *
   * @example
   * term.write("echo hello\n");
   */
  write(data: string | Uint8Array): void {
    this.#open().send(encodePtyInput(data));
  }

  /**
   * Changes the terminal size.
   *
   * @example
   * term.resize(process.stdout.columns, process.stdout.rows);
   */
  resize(cols: number, rows: number): void {
    this.#open().send(encodePtyResize(Math.min(cols, 0xffff), Math.min(rows, 0xffff)));
  }

  /** Bytes of input not yet handed to the network: a writer may wait while it is high. */
  get bufferedAmount(): number {
    return this.#ws?.bufferedAmount ?? 0;
  }

  /** Stops reading output from the network (backpressure); `resume()` continues. */
  pause(): void {
    this.#ws?.pause();
  }

  resume(): void {
    this.#ws?.resume();
  }

  /**
   * Detaches: the WebSocket closes and the program keeps running (reattach with `reconnect()`).
   *
   * @example
   * term.close();
   */
  close(): void {
    this.#ws?.close(1000);
  }

  /**
   * Ends the session and its program.
   *
   * @example
   * await term.kill();
   */
  async kill(): Promise<void> {
    await this.#transport.call(runtimeRoutes.deletePtySession, { params: { session_id: this.sessionId } });
  }

  /**
   * The session's record: status, exit code, size, attached clients.
   *
   * @example
   * const { status, exit_code } = await term.info();
   */
  info(): Promise<PtySession> {
    return this.#transport.call(runtimeRoutes.getPtySession, { params: { session_id: this.sessionId } });
  }

  #open(): WebSocket {
    if (this.#ws?.readyState !== WebSocket.OPEN)
      throw new ClientError("the terminal is not connected", "NOT_CONNECTED");
    return this.#ws;
  }
}

/** Creates a PTY session and attaches to it. */
export async function openPty(transport: Transport, options: PtyOptions = {}): Promise<PtyTerminal> {
  const body: CreatePtySessionRequest = {
    command: options.command ?? "sh",
    ...(options.args ? { args: options.args } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.workingDir !== undefined ? { working_dir: options.workingDir } : {}),
    ...(options.rows !== undefined ? { rows: options.rows } : {}),
    ...(options.cols !== undefined ? { cols: options.cols } : {}),
  };
  const created = await transport.call(runtimeRoutes.createPtySession, { body });
  const terminal = new PtyTerminal(transport, created.session_id, created.token);
  if (options.onData) terminal.onData(options.onData);
  try {
    await terminal.reconnect();
  } catch (error) {
    await terminal.kill().catch(() => {});
    throw error;
  }
  return terminal;
}
