/**
 * # host-command
 *
 * Runs a host tool (mount, mkfs.ext4, debootstrap, …) and collects its output. Failures reject with a
 * `HostCommandError` that carries the command, its exit status and its stderr, so a caller's error says what
 * broke. The environment is the server's, with `LC_ALL=C` so tools print messages this code can match.
 *
 * Tools run through the tool runner (tool-runner.ts), a small process started at the first call, so that the
 * server's own event loop does not pay a fork of its whole process per tool; a command whose output lines are
 * followed (`onLine`: the image build) is spawned here directly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { LaunchAnswer, LaunchRequest, ToolAnswer, ToolRequest } from "./tool-runner.ts";

const RUNNER_PATH = fileURLToPath(new URL("./tool-runner.ts", import.meta.url));

/** The server's connection to its tool runner: requests by id, answers matched back. */
class ToolRunnerClient {
  readonly #child: ChildProcess;
  readonly #pending = new Map<
    number,
    { resolve: (answer: ToolAnswer & LaunchAnswer) => void; reject: (e: Error) => void }
  >();
  /** Launched sandboxes' exits, reported while the runner lives (they never keep this process alive). */
  readonly #exits = new Map<number, (exit: NonNullable<LaunchAnswer["exit"]>) => void>();
  #next = 1;
  #gone: Error | undefined;

  constructor() {
    this.#child = spawn(process.execPath, [RUNNER_PATH], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    this.#child.on("error", (error) => this.#end(error));
    this.#child.on("exit", (code, signal) =>
      this.#end(new Error(`the tool runner exited (${signal ?? code})`)),
    );
    this.#child.stdin?.on("error", () => {});
    createInterface({ input: this.#child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      let answer: ToolAnswer & LaunchAnswer;
      try {
        answer = JSON.parse(line) as ToolAnswer & LaunchAnswer;
      } catch {
        return;
      }
      if (answer.exit) {
        this.#exits.get(answer.id)?.(answer.exit);
        this.#exits.delete(answer.id);
        return;
      }
      const waiter = this.#pending.get(answer.id);
      if (!waiter) return;
      this.#pending.delete(answer.id);
      waiter.resolve(answer);
      this.#hold();
    });
    this.#hold();
  }

  get alive(): boolean {
    return this.#gone === undefined;
  }

  run(request: Omit<ToolRequest, "id">): Promise<ToolAnswer> {
    return this.#send(request);
  }

  /** Starts a sandbox's first process; resolves with its pid, `onExit` called if it exits while the runner lives. */
  async launch(
    request: Omit<LaunchRequest, "id" | "kind">,
    onExit: (exit: NonNullable<LaunchAnswer["exit"]>) => void,
  ): Promise<number> {
    const answer = await this.#send({ ...request, kind: "launch" }, (id) => this.#exits.set(id, onExit));
    if (answer.pid === undefined) throw new Error(`sandbox launch: ${answer.error ?? "no pid"}`);
    return answer.pid;
  }

  #send(
    request: Omit<ToolRequest, "id"> | Omit<LaunchRequest, "id">,
    onId?: (id: number) => void,
  ): Promise<ToolAnswer & LaunchAnswer> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#next++;
    onId?.(id);
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#hold();
      this.#child.stdin?.write(`${JSON.stringify({ ...request, id })}\n`);
    });
  }

  /** Keeps this process alive only while requests wait for answers (the runner itself never does). */
  #hold(): void {
    const streams = [this.#child.stdin, this.#child.stdout] as unknown as { ref(): void; unref(): void }[];
    for (const stream of streams) {
      if (this.#pending.size > 0) stream?.ref?.();
      else stream?.unref?.();
    }
    if (this.#pending.size > 0) this.#child.ref();
    else this.#child.unref();
  }

  #end(error: Error): void {
    if (this.#gone) return;
    this.#gone = error;
    for (const waiter of this.#pending.values()) waiter.reject(error);
    this.#pending.clear();
    if (runner === this) runner = undefined;
  }
}

let runner: ToolRunnerClient | undefined;

/**
 * Starts a sandbox's first process through the tool runner (tool-runner.ts, LaunchRequest): resolves with its
 * pid; `exited` resolves if it exits while the runner lives.
 */
export async function launchThroughRunner(
  request: Omit<LaunchRequest, "id" | "kind">,
): Promise<{ pid: number; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
  runner ??= new ToolRunnerClient();
  let exit: (value: { code: number | null; signal: NodeJS.Signals | null }) => void = () => {};
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    exit = resolve;
  });
  const pid = await runner.launch(request, (value) => exit(value));
  return { pid, exited };
}

/**
 * Runs a tool through the tool runner (see the module comment) and answers with its exit and output. A runner
 * that died is started again at the next call; the requests it had in flight reject (a tool may have half run).
 */
export function runTool(request: Omit<ToolRequest, "id">): Promise<ToolAnswer> {
  runner ??= new ToolRunnerClient();
  return runner.run(request);
}

export class HostCommandError extends Error {
  readonly command: string;
  readonly exitCode: number | null;
  readonly stderr: string;
  constructor(command: string, exitCode: number | null, signal: string | null, stderr: string) {
    const status = signal ? `signal ${signal}` : `exit ${exitCode}`;
    super(`${command}: ${status}${stderr.trim() ? `: ${stderr.trim().slice(-2000)}` : ""}`);
    this.name = "HostCommandError";
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

export interface HostCommandOptions {
  /** Called with each complete output line (stdout and stderr alike) as it arrives. */
  onLine?: (line: string) => void;
  /** Extra environment variables. */
  env?: Record<string, string>;
  cwd?: string;
}

/** Runs `file args…`; resolves with its stdout, rejects with a HostCommandError when it does not exit 0. */
export function runHostCommand(
  file: string,
  args: string[],
  options: HostCommandOptions = {},
): Promise<string> {
  if (!options.onLine) {
    return runTool({ file, args, env: options.env, cwd: options.cwd }).then(
      (answer) => {
        if (answer.code === 0 && !answer.error) return answer.stdout;
        const command = `${file} ${args.join(" ")}`;
        if (answer.error) throw new HostCommandError(command, null, null, answer.error);
        throw new HostCommandError(command, answer.code, answer.signal, answer.stderr);
      },
      (error: Error) => {
        throw new HostCommandError(`${file} ${args.join(" ")}`, null, null, error.message);
      },
    );
  }
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LC_ALL: "C", ...options.env },
      cwd: options.cwd,
    });
    let stdout = "";
    let stderr = "";
    const lineSplitter = () => {
      let pending = "";
      return (chunk: string) => {
        if (!options.onLine) return;
        pending += chunk;
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) options.onLine(line);
      };
    };
    const outLines = lineSplitter();
    const errLines = lineSplitter();
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      outLines(chunk);
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      // Keep the tail only: debootstrap can print megabytes.
      stderr = (stderr + chunk).slice(-64 * 1024);
      errLines(chunk);
    });
    child.on("error", (error) =>
      reject(new HostCommandError(`${file} ${args.join(" ")}`, null, null, error.message)),
    );
    child.on("close", (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(new HostCommandError(`${file} ${args.join(" ")}`, code, signal, stderr));
    });
  });
}
