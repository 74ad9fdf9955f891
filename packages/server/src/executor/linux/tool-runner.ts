/**
 * # tool-runner
 *
 * A small Node process that runs host tools (ip, nft, mount, mkfs.ext4, …) for the server. Node forks the whole
 * calling process to spawn one, on the calling thread: from a server holding a few hundred MB that is ~7–12 ms
 * of its event loop per tool, and a sandbox start runs about seven (a CPU profile of sandbox starts had spawn
 * as the server's largest cost). This process holds ~40 MB and only this loop, so its forks are cheaper and the
 * server's event loop stays free.
 *
 * Protocol: one JSON request per line on stdin `{id, file, args, input?, env?, cwd?}`, one JSON answer per line
 * on stdout `{id, code, signal, stdout, stderr}` (`error` instead when the tool could not be started). stderr
 * keeps its last 64 KiB. A `kind: "launch"` request starts a sandbox (LaunchRequest). The process exits when its
 * stdin closes (the server went away); sandboxes it started live on.
 *
 * Run as `node tool-runner.ts`; host-command.ts starts it and routes requests through it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { createInterface } from "node:readline";

export interface ToolRequest {
  id: number;
  file: string;
  args: string[];
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * Starts a sandbox's first process (launch.ts): detached, not waited for, stdin /dev/null, stdout and stderr
 * appended to `logFile`, `seccompFile` open at fd 3 and `secret` (when given) written into a pipe at fd 4. The
 * answer carries its pid once it runs; a second answer `{id, exit}` follows if it exits while this process lives.
 */
export interface LaunchRequest {
  id: number;
  kind: "launch";
  file: string;
  args: string[];
  env: Record<string, string>;
  logFile: string;
  seccompFile: string;
  secret?: string;
}

export interface LaunchAnswer {
  id: number;
  pid?: number;
  error?: string;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
}

export interface ToolAnswer {
  id: number;
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** The tool could not be started (ENOENT, …). */
  error?: string;
}

function run(request: ToolRequest, answer: (result: ToolAnswer) => void): void {
  const child = spawn(request.file, request.args, {
    stdio: [request.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    env: { ...process.env, LC_ALL: "C", ...request.env },
    cwd: request.cwd,
  });
  let stdout = "";
  let stderr = "";
  let failed: string | undefined;
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-64 * 1024);
  });
  child.on("error", (error) => {
    failed = error.message;
  });
  child.on("close", (code, signal) => {
    answer({ id: request.id, code, signal, stdout, stderr, ...(failed ? { error: failed } : {}) });
  });
  if (request.input !== undefined) {
    child.stdin?.on("error", () => {}); // a tool that exits early closes its stdin; its exit code tells
    child.stdin?.end(request.input);
  }
}

function launch(request: LaunchRequest, answer: (result: LaunchAnswer) => void): void {
  let logFd: number | undefined;
  let seccompFd: number | undefined;
  let child: ChildProcess;
  try {
    logFd = openSync(request.logFile, "a", 0o600);
    seccompFd = openSync(request.seccompFile, "r");
    child = spawn(request.file, request.args, {
      detached: true,
      stdio: ["ignore", logFd, logFd, seccompFd, request.secret !== undefined ? "pipe" : "ignore"],
      env: request.env,
      cwd: "/",
    });
  } catch (error) {
    answer({ id: request.id, error: (error as Error).message });
    return;
  } finally {
    if (logFd !== undefined) closeSync(logFd);
    if (seccompFd !== undefined) closeSync(seccompFd);
  }
  child.once("error", (error) => answer({ id: request.id, error: error.message }));
  child.once("spawn", () => {
    const secretPipe = child.stdio[4];
    if (secretPipe && "write" in secretPipe) {
      secretPipe.on("error", () => {}); // bwrap died before reading: its error is in the log
      // Once written, this end closes: bwrap reads the buffered secret, then EOF.
      secretPipe.end(request.secret, () => secretPipe.destroy());
    }
    answer({ id: request.id, pid: child.pid });
  });
  child.once("exit", (code, signal) => answer({ id: request.id, exit: { code, signal } }));
  child.unref();
}

if (import.meta.main) {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    let request: ToolRequest | LaunchRequest;
    try {
      request = JSON.parse(line) as ToolRequest | LaunchRequest;
    } catch {
      return;
    }
    const answer = (result: ToolAnswer | LaunchAnswer) => process.stdout.write(`${JSON.stringify(result)}\n`);
    if ("kind" in request && request.kind === "launch") launch(request, answer);
    else run(request, answer);
  });
  lines.on("close", () => process.exit(0));
}
