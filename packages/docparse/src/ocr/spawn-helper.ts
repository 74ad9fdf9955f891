import { type ChildProcess, fork } from "node:child_process";

/**
 * Programs (tesseract) started from a small helper process instead of from this one. Starting a process copies
 * the starting process's page tables, at a CPU cost that grows with its memory, on the thread that starts it: a
 * few milliseconds from a small process, tens from a server parsing a large PDF (its heap over a gigabyte), with
 * the parse thread blocked meanwhile. The helper (spawn-helper-process.ts) is forked once per thread that runs
 * programs, the first time one is run, and kept; it starts each program, feeds its stdin and hands back its exit
 * and output over the IPC channel.
 *
 * The helper is not referenced while idle (it keeps no process alive). When it dies (a crash, a kill), the
 * programs it was running are started again on a new helper, once; a request whose second helper dies too fails
 * with a SpawnError. When this process goes, the helper's channel closes and it kills its programs and exits.
 */

/** A program to start, as the helper receives it. */
export interface SpawnRequest {
  id: number;
  program: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  input: Uint8Array | null;
  /** Stdout beyond this kills the program (`overflow`). */
  maxStdoutBytes: number;
  /** Stderr beyond this is dropped. */
  maxStderrBytes: number;
  /** CPU time beyond this kills the program (`cpuLimited`); null: no limit, and its CPU time is not read. */
  cpuLimitMs: number | null;
}

/** The helper's answer: the program ended, or it could not be started. */
export type SpawnReply =
  | {
      id: number;
      kind: "exit";
      code: number | null;
      signal: NodeJS.Signals | null;
      overflow: boolean;
      cpuMs: number | null;
      cpuLimited: boolean;
      stdout: Uint8Array;
      stderr: string;
    }
  | { id: number; kind: "error"; code: string | null; message: string };

/** How a program ended and what it wrote. */
export interface ProgramResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** It wrote more than `maxStdoutBytes` and was killed. */
  overflow: boolean;
  /**
   * The CPU time it used, read from /proc while it ran (short by at most a few tens of milliseconds); null when
   * no `cpuLimitMs` was given or /proc could not be read.
   */
  cpuMs: number | null;
  /** It used more than `cpuLimitMs` and was killed. */
  cpuLimited: boolean;
  stdout: Buffer;
  stderr: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  input?: Uint8Array;
  /** Kills the program when aborted; the run then ends with its exit (signal SIGKILL). */
  signal?: AbortSignal;
  maxStdoutBytes: number;
  maxStderrBytes: number;
  /** Kills the program once it has used this much CPU time (see ProgramResult's `cpuMs`). */
  cpuLimitMs?: number;
}

/** The program could not be started (`code`: the system's, such as ENOENT), or the helper failed. */
export class SpawnError extends Error {
  override name = "SpawnError";
  readonly code: string | null;
  constructor(message: string, code: string | null) {
    super(message);
    this.code = code;
  }
}

const HELPER = new URL("./spawn-helper-process.ts", import.meta.url);

interface Pending {
  request: SpawnRequest;
  /** Helpers that died while it ran. */
  deaths: number;
  resolve: (result: ProgramResult) => void;
  reject: (error: Error) => void;
}

class SpawnHelper {
  #child: ChildProcess | null = null;
  readonly #pending = new Map<number, Pending>();
  #next = 1;

  /** The helper's process id, or null when none runs (for tests). */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  run(program: string, args: string[], options: RunOptions): Promise<ProgramResult> {
    const request: SpawnRequest = {
      id: this.#next++,
      program,
      args,
      env: options.env ?? process.env,
      input: options.input ?? null,
      maxStdoutBytes: options.maxStdoutBytes,
      maxStderrBytes: options.maxStderrBytes,
      cpuLimitMs: options.cpuLimitMs ?? null,
    };
    return new Promise<ProgramResult>((resolve, reject) => {
      const pending: Pending = { request, deaths: 0, resolve, reject };
      const signal = options.signal;
      if (signal) {
        const onAbort = () => {
          if (this.#pending.has(request.id)) this.#child?.send({ kill: request.id });
        };
        signal.addEventListener("abort", onAbort, { once: true });
        const settle = () => signal.removeEventListener("abort", onAbort);
        pending.resolve = (result) => {
          settle();
          resolve(result);
        };
        pending.reject = (error) => {
          settle();
          reject(error);
        };
      }
      this.#pending.set(request.id, pending);
      this.#send(request);
    });
  }

  /** Kills the helper (its programs die with it); for tests, which check that the runs survive it. */
  kill(): void {
    this.#child?.kill("SIGKILL");
  }

  #send(request: SpawnRequest): void {
    const child = this.#helper();
    child.ref();
    child.channel?.ref();
    child.send(request);
  }

  #helper(): ChildProcess {
    if (this.#child) return this.#child;
    // No inherited flags (a profiler's, the test runner's): the helper is plain Node running one file.
    const child = fork(HELPER, [], {
      execArgv: [],
      serialization: "advanced",
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    });
    this.#child = child;
    child.on("message", (reply: SpawnReply) => this.#settle(reply));
    const ended = () => this.#ended(child);
    child.on("exit", ended);
    child.on("error", ended);
    return child;
  }

  #settle(reply: SpawnReply): void {
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    this.#pending.delete(reply.id);
    this.#idle();
    if (reply.kind === "error") {
      pending.reject(new SpawnError(reply.message, reply.code));
      return;
    }
    const { code, signal, overflow, cpuMs, cpuLimited, stderr } = reply;
    const stdout = Buffer.from(reply.stdout.buffer, reply.stdout.byteOffset, reply.stdout.byteLength);
    pending.resolve({ code, signal, overflow, cpuMs, cpuLimited, stdout, stderr });
  }

  /** The helper died: what it was running starts again on a new one, once. */
  #ended(child: ChildProcess): void {
    if (this.#child !== child) return;
    this.#child = null;
    const again: SpawnRequest[] = [];
    for (const [id, pending] of this.#pending) {
      pending.deaths++;
      if (pending.deaths < 2) {
        again.push(pending.request);
        continue;
      }
      this.#pending.delete(id);
      pending.reject(new SpawnError("the spawn helper died twice while it ran", null));
    }
    for (const request of again) this.#send(request);
  }

  /** Unreferenced while nothing runs, so that the helper keeps no process alive. */
  #idle(): void {
    if (this.#pending.size > 0 || !this.#child) return;
    this.#child.unref();
    this.#child.channel?.unref();
  }
}

/** This thread's helper. */
export const spawnHelper = new SpawnHelper();

/** Runs a program from this thread's spawn helper, with `input` on its stdin; see SpawnHelper. */
export function runProgram(program: string, args: string[], options: RunOptions): Promise<ProgramResult> {
  return spawnHelper.run(program, args, options);
}
