import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { SpawnReply, SpawnRequest } from "./spawn-helper.ts";

/**
 * The body of the spawn helper (spawn-helper.ts): a small process, forked once, that starts programs for its parent
 * and hands back what they wrote. It starts nothing by itself. When its parent goes (exit, crash, SIGKILL: the IPC
 * channel closes), it kills every program it started and exits, so none outlives the server.
 */

const send = process.send?.bind(process);
if (!send) throw new Error("spawn-helper-process.ts runs as a forked child with an IPC channel");

const running = new Map<number, ChildProcess>();
/** How often a program's CPU time is read while it runs: a run is counted short by at most this much. */
const CPU_POLL_MS = 25;
/** Clock ticks a second of /proc's CPU times (USER_HZ, 100 on Linux's every architecture's user interface). */
const TICKS_PER_SECOND = 100;

/**
 * The CPU time (user and system) a process has used, in milliseconds, from /proc/PID/stat; null when it cannot be
 * read (no /proc, the process is gone).
 */
function cpuTimeMs(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null;
  }
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis): utime and
  // stime are the 14th and 15th fields of the line, the 12th and 13th after it.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : null;
}

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
  // The program's CPU time, read every CPU_POLL_MS when a limit was asked for; it is killed past the limit.
  let cpuMs: number | null = null;
  let cpuLimited = false;
  const limit = request.cpuLimitMs;
  const poll =
    limit === null || child.pid === undefined
      ? undefined
      : setInterval(() => {
          const used = cpuTimeMs(child.pid as number);
          if (used === null) return;
          cpuMs = used;
          if (used > limit && !cpuLimited) {
            cpuLimited = true;
            child.kill("SIGKILL");
          }
        }, CPU_POLL_MS);
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
    clearInterval(poll);
    running.delete(request.id);
    reply({ id: request.id, kind: "error", code: error.code ?? null, message: error.message });
  });
  child.on("close", (code, signal) => {
    clearInterval(poll);
    if (!running.delete(request.id)) return;
    const out = Buffer.concat(stdout);
    reply({ id: request.id, kind: "exit", code, signal, overflow, cpuMs, cpuLimited, stdout: out, stderr });
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
