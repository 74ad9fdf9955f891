import { type ChildProcess, spawn } from "node:child_process";
import type { SpawnReply, SpawnRequest } from "./spawn-helper.ts";

/**
 * The body of the spawn helper (spawn-helper.ts): a small process, forked once, that starts programs for its parent
 * and hands back what they wrote. It starts nothing by itself. When its parent goes (exit, crash, SIGKILL: the IPC
 * channel closes), it kills every program it started and exits, so none outlives the server.
 */

const send = process.send?.bind(process);
if (!send) throw new Error("spawn-helper-process.ts runs as a forked child with an IPC channel");

const running = new Map<number, ChildProcess>();

function reply(message: SpawnReply): void {
  if (process.connected) send?.(message);
}

function run(request: SpawnRequest): void {
  let child: ChildProcess;
  try {
    child = spawn(request.program, request.args, { env: request.env, stdio: ["pipe", "pipe", "pipe"] });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    reply({ id: request.id, kind: "error", code: code ?? null, message });
    return;
  }
  running.set(request.id, child);
  const stdout: Buffer[] = [];
  let stdoutBytes = 0;
  let stderr = "";
  let overflow = false;
  child.stdout?.on("data", (chunk: Buffer) => {
    stdoutBytes += chunk.length;
    if (stdoutBytes > request.maxStdoutBytes) {
      // Read no more: a process the program started may hold the pipe open after it is killed.
      overflow = true;
      child.kill("SIGKILL");
      child.stdout?.destroy();
    } else stdout.push(chunk);
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    if (stderr.length < request.maxStderrBytes) stderr += chunk.toString("utf8");
  });
  // The program may exit before reading all of stdin (a bad image): the broken pipe is not the error to report.
  child.stdin?.on("error", () => {});
  child.on("error", (error: NodeJS.ErrnoException) => {
    running.delete(request.id);
    reply({ id: request.id, kind: "error", code: error.code ?? null, message: error.message });
  });
  child.on("close", (code, signal) => {
    if (!running.delete(request.id)) return;
    reply({ id: request.id, kind: "exit", code, signal, overflow, stdout: Buffer.concat(stdout), stderr });
  });
  child.stdin?.end(request.input ? Buffer.from(request.input) : undefined);
}

process.on("message", (message: SpawnRequest | { kill: number }) => {
  if ("kill" in message) running.get(message.kill)?.kill("SIGKILL");
  else run(message);
});

process.on("disconnect", () => {
  for (const child of running.values()) child.kill("SIGKILL");
  process.exit(0);
});
