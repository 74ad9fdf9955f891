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
 * keeps its last 64 KiB. The process exits when its stdin closes (the server went away).
 *
 * Run as `node tool-runner.ts`; host-command.ts starts it and routes requests through it.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

export interface ToolRequest {
  id: number;
  file: string;
  args: string[];
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
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

if (import.meta.main) {
  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    let request: ToolRequest;
    try {
      request = JSON.parse(line) as ToolRequest;
    } catch {
      return;
    }
    run(request, (result) => process.stdout.write(`${JSON.stringify(result)}\n`));
  });
  lines.on("close", () => process.exit(0));
}
