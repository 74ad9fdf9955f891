import { randomBytes, timingSafeEqual } from "node:crypto";
import {
  decodePtyClientFrame,
  encodePtyExit,
  encodePtyOutput,
  PTY_CLOSE_EXIT,
  PTY_CLOSE_SESSION_DELETED,
  PTY_CLOSE_SESSION_DELETED_REASON,
  ptyExitCloseReason,
} from "@svc/contract/pty-frames";
import {
  clampPtySize,
  type PtySession as PtySessionRecord,
  TUNNEL_CLOSE_TEXT_FRAME,
} from "@svc/contract/runtime";
import type { IPty } from "node-pty";
import type { WebSocket } from "ws";
import { OutputRing } from "./output-ring.ts";

/** A client's send buffer above this pauses the PTY; output resumes when every client is below the low mark. */
const OUTPUT_HIGH_WATER = 256 * 1024;
const OUTPUT_LOW_WATER = 64 * 1024;
/** Input queued for the PTY above this pauses reading from the WebSocket until it is below the low mark. */
const INPUT_HIGH_WATER = 1024 * 1024;
const INPUT_LOW_WATER = 256 * 1024;
const INPUT_POLL_MS = 5;
/** Replayed output goes out in frames of at most this size. */
const REPLAY_FRAME_BYTES = 64 * 1024;

interface Client {
  ws: WebSocket;
  /** The client sent READY: it receives output. */
  ready: boolean;
}

export interface PtySessionInit {
  id: string;
  pty: IPty;
  command: string;
  args: string[];
  rows: number;
  cols: number;
  replayBytes: number;
  onExit: (session: PtySession) => void;
  /** Kills the session's whole process tree at once (its cgroup); without it, its process group is killed. */
  killTree?: () => void;
}

/**
 * One terminal: a process on a pseudo-terminal, the recent output it produced, and the WebSockets attached to it.
 * The session outlives its WebSockets; a client that connects sends READY and then receives the recent output
 * (replay) followed by live output. Output is read as long as no attached client is slow: a client whose send
 * buffer is full pauses the PTY (so the program blocks on its writes), and input is queued to the PTY only as fast
 * as the program reads it.
 */
export class PtySession {
  readonly id: string;
  readonly token = randomBytes(24).toString("base64url");
  readonly command: string;
  readonly args: string[];
  readonly createdAt = Date.now();
  readonly pid: number;
  rows: number;
  cols: number;
  status: "running" | "exited" = "running";
  exitCode: number | null = null;
  /** When a client last attached, detached or sent anything, or the process ended. */
  lastActivity = Date.now();
  readonly exited: Promise<number>;
  readonly #pty: IPty;
  readonly #ring: OutputRing;
  readonly #clients = new Set<Client>();
  #outputPaused = false;
  #deleted = false;
  readonly #killTree: (() => void) | undefined;

  constructor(init: PtySessionInit) {
    this.id = init.id;
    this.#pty = init.pty;
    this.#killTree = init.killTree;
    this.pid = init.pty.pid;
    this.command = init.command;
    this.args = init.args;
    this.rows = init.rows;
    this.cols = init.cols;
    this.#ring = new OutputRing(init.replayBytes);
    // The PTY is opened with a null encoding: data arrives as Buffers.
    init.pty.onData((data) => this.#output(data as unknown as Buffer));
    this.exited = new Promise((resolve) => {
      init.pty.onExit(({ exitCode, signal }) => {
        // A signal ends the process as a shell reports it: 128 + the signal number.
        const code = signal ? 128 + signal : exitCode;
        this.status = "exited";
        this.exitCode = code;
        this.lastActivity = Date.now();
        for (const client of this.#clients) if (client.ready) this.#sendExit(client);
        init.onExit(this);
        resolve(code);
      });
    });
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  /** Constant-time comparison of a presented token. */
  tokenMatches(presented: string | undefined): boolean {
    if (presented === undefined) return false;
    const a = Buffer.from(presented);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  toRecord(): PtySessionRecord {
    return {
      session_id: this.id,
      command: this.command,
      args: this.args,
      pid: this.pid,
      status: this.status,
      exit_code: this.exitCode,
      rows: this.rows,
      cols: this.cols,
      client_count: this.#clients.size,
      created_at: this.createdAt,
    };
  }

  resize(size: { rows?: number | null; cols?: number | null }): void {
    const next = clampPtySize(size, { rows: this.rows, cols: this.cols });
    this.rows = next.rows;
    this.cols = next.cols;
    this.lastActivity = Date.now();
    if (this.status === "running") {
      try {
        this.#pty.resize(next.cols, next.rows);
      } catch {
        // The process ended between the check and the ioctl.
      }
    }
  }

  /** Attaches a WebSocket: frames in, output out once it sends READY. */
  attach(ws: WebSocket): void {
    const client: Client = { ws, ready: false };
    this.#clients.add(client);
    this.lastActivity = Date.now();
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        ws.close(TUNNEL_CLOSE_TEXT_FRAME, "binary frames only");
        return;
      }
      const decoded = decodePtyClientFrame(data as Buffer | Buffer[]);
      if (!decoded.ok) return; // A malformed frame is ignored, never fatal.
      this.lastActivity = Date.now();
      const frame = decoded.frame;
      if (frame.type === "input") this.#input(client, frame.data);
      else if (frame.type === "resize") this.resize(frame);
      else if (!client.ready) this.#ready(client);
    });
    ws.on("error", () => ws.terminate());
    ws.on("close", () => {
      this.#clients.delete(client);
      this.lastActivity = Date.now();
      this.#maybeResumeOutput();
    });
  }

  /**
   * Ends the session: attached WebSockets close with 1001, the process group gets SIGHUP and, if still alive
   * after `graceMs`, SIGKILL. Resolves when the process has ended (or after the grace period).
   */
  async delete(graceMs = 1000): Promise<void> {
    if (this.#deleted) return;
    this.#deleted = true;
    for (const client of this.#clients)
      client.ws.close(PTY_CLOSE_SESSION_DELETED, PTY_CLOSE_SESSION_DELETED_REASON);
    if (this.status !== "running") {
      // What the shell left running in the background goes with the session.
      this.#killTree?.();
      return;
    }
    this.#signalGroup("SIGHUP");
    const ended = await Promise.race([
      this.exited.then(() => true),
      new Promise<false>((done) => setTimeout(() => done(false), graceMs).unref()),
    ]);
    // Whatever the hang-up left (a daemonized descendant) goes with the session.
    this.#killTree?.();
    if (!ended) {
      this.#signalGroup("SIGKILL");
      await Promise.race([this.exited, new Promise((done) => setTimeout(done, 2000).unref())]);
    }
  }

  #signalGroup(signal: NodeJS.Signals): void {
    if (this.status !== "running") return;
    // The PTY child is a session leader: its pid is its process group.
    try {
      process.kill(-this.pid, signal);
    } catch {
      try {
        process.kill(this.pid, signal);
      } catch {
        // Already gone.
      }
    }
  }

  #ready(client: Client): void {
    client.ready = true;
    const replay = this.#ring.snapshot();
    for (let offset = 0; offset < replay.length; offset += REPLAY_FRAME_BYTES) {
      this.#send(client, encodePtyOutput(replay.subarray(offset, offset + REPLAY_FRAME_BYTES)));
    }
    if (this.status === "exited") this.#sendExit(client);
  }

  #sendExit(client: Client): void {
    const code = this.exitCode ?? 0;
    client.ws.send(encodePtyExit(code));
    client.ws.close(PTY_CLOSE_EXIT, ptyExitCloseReason(code));
  }

  #output(data: Buffer): void {
    this.#ring.push(data);
    let ready = false;
    for (const client of this.#clients) ready ||= client.ready;
    if (!ready) return;
    const frame = encodePtyOutput(data);
    for (const client of this.#clients) if (client.ready) this.#send(client, frame);
  }

  #send(client: Client, frame: Uint8Array): void {
    if (client.ws.readyState !== client.ws.OPEN) return;
    client.ws.send(frame, () => this.#maybeResumeOutput());
    if (client.ws.bufferedAmount > OUTPUT_HIGH_WATER && !this.#outputPaused && this.status === "running") {
      this.#outputPaused = true;
      this.#pty.pause();
    }
  }

  #maybeResumeOutput(): void {
    if (!this.#outputPaused) return;
    for (const client of this.#clients) {
      if (
        client.ready &&
        client.ws.readyState === client.ws.OPEN &&
        client.ws.bufferedAmount > OUTPUT_LOW_WATER
      )
        return;
    }
    this.#outputPaused = false;
    this.#pty.resume();
  }

  #input(client: Client, data: Uint8Array): void {
    if (this.status !== "running" || data.length === 0) return;
    this.#pty.write(Buffer.from(data) as unknown as string);
    if (this.#pendingInput() > INPUT_HIGH_WATER && !client.ws.isPaused) {
      client.ws.pause();
      const poll = () => {
        if (client.ws.readyState !== client.ws.OPEN) return;
        if (this.status === "running" && this.#pendingInput() > INPUT_LOW_WATER) {
          setTimeout(poll, INPUT_POLL_MS);
          return;
        }
        client.ws.resume();
      };
      setTimeout(poll, INPUT_POLL_MS);
    }
  }

  /**
   * Bytes written to the PTY that the kernel has not taken yet. node-pty queues writes internally and exposes no
   * drain event, so its queue is read; without it, input is not throttled.
   */
  #pendingInput(): number {
    const queue = (
      this.#pty as unknown as { _writeStream?: { _writeQueue?: { buffer: Buffer; offset: number }[] } }
    )._writeStream?._writeQueue;
    if (!Array.isArray(queue)) return 0;
    let pending = 0;
    for (const task of queue) pending += task.buffer.byteLength - task.offset;
    return pending;
  }
}
