import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { DocumentLoadError } from "../model.ts";

/**
 * A pool of persistent headless LibreOffice processes that convert legacy office files (DOC, XLS, PPT, RTF,
 * Keynote, OpenDocument) into formats the engine reads. Each worker is a Python-UNO bridge (bridge.py) that owns
 * one `soffice` with its own profile directory and keeps it running, so a conversion costs the document's own
 * load and store, not LibreOffice's start (seconds). Workers start on the first document that needs one; a
 * worker that dies or runs past the per-document time limit is ended with its soffice and replaced by the next
 * request. `shutdownOfficePool()` ends them all; a worker also ends when its owner's process or thread does
 * (the bridge sees its stdin close).
 */

/** Debian's Python, which has the `uno` module of the python3-uno package (a pyenv python would not). */
const PYTHON = process.env.SVC_OFFICE_PYTHON ?? "/usr/bin/python3";
const BRIDGE = fileURLToPath(new URL("./bridge.py", import.meta.url));

export interface OfficePoolOptions {
  /** Workers (soffice processes) at most; default SVC_OFFICE_WORKERS or 1. */
  workers?: number;
  /** Longest one conversion may take before its worker is ended, ms; default SVC_OFFICE_TIMEOUT_MS or 60 s. */
  timeoutMs?: number;
  /** Longest a worker may take to start, ms. */
  startTimeoutMs?: number;
}

interface Reply {
  ready?: boolean;
  ok?: boolean;
  error?: string;
}

/** Whether this machine can convert office files: soffice and Python-UNO are installed. */
export function officeAvailable(): boolean {
  return existsSync(PYTHON) && ["/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice"].some(existsSync);
}

class OfficeWorker {
  readonly dir: string;
  readonly #child: ChildProcess;
  #waiting: ((reply: Reply) => void) | null = null;
  #alive = true;
  readonly ready: Promise<void>;

  private constructor(dir: string) {
    this.dir = dir;
    const pipe = `svc-office-${process.pid}-${path.basename(dir)}`;
    this.#child = spawn(PYTHON, [BRIDGE, path.join(dir, "profile"), pipe], {
      stdio: ["pipe", "pipe", "ignore"],
      // Its own process group, so that ending the worker ends soffice with it.
      detached: true,
      // Its temporary files (`lu*.tmp`) in the worker's own directory, removed with it: soffice leaves them
      // behind when it is killed, and a long-running server would fill /tmp.
      env: { ...process.env, SAL_USE_VCLPLUGIN: "svp", HOME: dir, TMPDIR: dir },
    });
    const lines = createInterface({ input: this.#child.stdout as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      let reply: Reply;
      try {
        reply = JSON.parse(line) as Reply;
      } catch {
        return;
      }
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting?.(reply);
    });
    this.#child.on("exit", (code, signal) => {
      this.#alive = false;
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting?.({ error: `the LibreOffice worker ended (${signal ?? `code ${code}`})` });
    });
    this.#child.on("error", (error) => {
      // The bridge could not be started (no Python): whoever waits for it hears so.
      this.#alive = false;
      const waiting = this.#waiting;
      this.#waiting = null;
      waiting?.({ error: `the LibreOffice worker could not start: ${error.message}` });
    });
    this.#child.stdin?.on("error", () => {});
    this.ready = this.#next(Number.POSITIVE_INFINITY).then((reply) => {
      if (!reply.ready) throw new Error(reply.error ?? "the LibreOffice worker did not start");
    });
    this.#idle();
  }

  static async start(startTimeoutMs: number): Promise<OfficeWorker> {
    const dir = await mkdtemp(path.join(tmpdir(), "svc-office-"));
    const worker = new OfficeWorker(dir);
    worker.#busy();
    try {
      await withTimeout(worker.ready, startTimeoutMs, "LibreOffice did not start in time");
    } catch (error) {
      await worker.stop();
      throw error;
    } finally {
      worker.#idle();
    }
    return worker;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** The next reply line, or a timeout. */
  #next(timeoutMs: number): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      this.#waiting = (reply) => {
        clearTimeout(timer);
        resolve(reply);
      };
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          this.#waiting = null;
          resolve({ error: `timeout after ${timeoutMs} ms` });
        }, timeoutMs);
      }
    });
  }

  /** While a request is open the worker keeps the process alive; idle, it does not hold the process open. */
  #busy(): void {
    this.#child.ref();
    (this.#child.stdout as unknown as { ref?: () => void }).ref?.();
  }

  #idle(): void {
    this.#child.unref();
    (this.#child.stdout as unknown as { unref?: () => void }).unref?.();
    (this.#child.stdin as unknown as { unref?: () => void })?.unref?.();
  }

  async convert(input: string, output: string, filter: string, timeoutMs: number): Promise<Reply> {
    this.#busy();
    try {
      const answer = this.#next(timeoutMs);
      this.#child.stdin?.write(`${JSON.stringify({ input, output, filter })}\n`);
      const reply = await answer;
      if (reply.error?.startsWith("timeout after")) await this.stop();
      return reply;
    } finally {
      this.#idle();
    }
  }

  /** Ends the bridge and its soffice (the whole process group), and removes the worker's directory. */
  async stop(): Promise<void> {
    // Hold the process open until the worker is gone.
    this.#busy();
    if (this.#alive && this.#child.pid !== undefined) {
      const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
      this.#child.stdin?.end();
      const graceful = await Promise.race([exited.then(() => true), delay(3000).then(() => false)]);
      if (!graceful) {
        try {
          process.kill(-this.#child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
        await Promise.race([exited, delay(2000)]);
      }
    }
    // soffice may outlive the bridge by a moment; its process group goes with it.
    if (this.#child.pid !== undefined) {
      try {
        process.kill(-this.#child.pid, "SIGKILL");
      } catch {
        // The group is empty.
      }
    }
    this.#alive = false;
    await rm(this.dir, { recursive: true, force: true });
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]);
}

/** Extensions LibreOffice is told the input has, so it picks its import filter without guessing. */
export type OfficeSource = "doc" | "xls" | "ppt" | "pptx" | "rtf" | "key" | "odt" | "ods" | "odp";

export class OfficePool {
  readonly #max: number;
  readonly #timeoutMs: number;
  readonly #startTimeoutMs: number;
  readonly #idle: OfficeWorker[] = [];
  #count = 0;
  readonly #queue: ((worker: OfficeWorker | null) => void)[] = [];
  #closed = false;

  constructor(options: OfficePoolOptions = {}) {
    this.#max = Math.max(1, options.workers ?? Number(process.env.SVC_OFFICE_WORKERS ?? 1));
    this.#timeoutMs = options.timeoutMs ?? Number(process.env.SVC_OFFICE_TIMEOUT_MS ?? 60_000);
    this.#startTimeoutMs = options.startTimeoutMs ?? 90_000;
  }

  /** Workers running now. */
  get size(): number {
    return this.#count;
  }

  async #acquire(): Promise<OfficeWorker> {
    if (this.#closed) throw new DocumentLoadError("The LibreOffice pool is shut down");
    for (;;) {
      const worker = this.#idle.pop();
      if (!worker) break;
      if (worker.alive) return worker;
      this.#count--;
      await worker.stop();
    }
    if (this.#count < this.#max) {
      this.#count++;
      try {
        return await OfficeWorker.start(this.#startTimeoutMs);
      } catch (error) {
        this.#count--;
        this.#handOn();
        throw new DocumentLoadError(
          `LibreOffice could not be started to convert the document: ${error instanceof Error ? error.message : error}`,
        );
      }
    }
    const worker = await new Promise<OfficeWorker | null>((resolve) => this.#queue.push(resolve));
    if (worker) return worker;
    return this.#acquire();
  }

  /** Lets the next waiting request have a worker, or start one. */
  #handOn(): void {
    this.#queue.shift()?.(null);
  }

  #release(worker: OfficeWorker): void {
    if (this.#closed || !worker.alive) {
      this.#count--;
      void worker.stop();
      this.#handOn();
      return;
    }
    const waiting = this.#queue.shift();
    if (waiting) waiting(worker);
    else this.#idle.push(worker);
  }

  /**
   * Converts a document with the export `filter` (e.g. `MS Word 2007 XML`) and returns the converted bytes.
   * A document LibreOffice cannot read, or one that takes longer than the time limit, is a DocumentLoadError.
   */
  async convert(
    bytes: Uint8Array,
    source: OfficeSource,
    target: string,
    filter: string,
  ): Promise<Uint8Array> {
    if (this.#closed) throw new DocumentLoadError("The LibreOffice pool is shut down");
    const worker = await this.#acquire();
    const input = path.join(worker.dir, `input.${source}`);
    const output = path.join(worker.dir, `output.${target}`);
    try {
      await writeFile(input, bytes);
      await rm(output, { force: true });
      const reply = await worker.convert(input, output, filter, this.#timeoutMs);
      if (reply.error?.startsWith("timeout after")) {
        throw new DocumentLoadError(
          `LibreOffice did not convert the document within ${Math.round(this.#timeoutMs / 1000)} s`,
        );
      }
      if (!reply.ok) {
        throw new DocumentLoadError(
          `LibreOffice could not read the ${source.toUpperCase()} document: ${reply.error}`,
        );
      }
      const converted = await readFile(output).catch(() => null);
      if (!converted || converted.length === 0) {
        throw new DocumentLoadError(`LibreOffice could not convert the ${source.toUpperCase()} document`);
      }
      return new Uint8Array(converted.buffer, converted.byteOffset, converted.byteLength);
    } finally {
      await rm(input, { force: true }).catch(() => {});
      await rm(output, { force: true }).catch(() => {});
      this.#release(worker);
    }
  }

  /** Ends every worker and its soffice; later conversions are refused. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#queue.splice(0)) waiting(null);
    const workers = this.#idle.splice(0);
    this.#count -= workers.length;
    await Promise.all(workers.map((worker) => worker.stop()));
  }
}

let shared: OfficePool | null = null;

/** The process's (or worker thread's) pool, made on first use. */
export function officePool(): OfficePool {
  shared ??= new OfficePool();
  return shared;
}

/** Ends the shared pool's LibreOffice processes (a later conversion starts a new pool). */
export async function shutdownOfficePool(): Promise<void> {
  const pool = shared;
  shared = null;
  await pool?.shutdown();
}
