/**
 * # host-command
 *
 * Runs a host tool (mount, mkfs.ext4, debootstrap, …) and collects its output. Failures reject with a
 * `HostCommandError` that carries the command, its exit status and its stderr, so a caller's error says what
 * broke. The environment is the server's, with `LC_ALL=C` so tools print messages this code can match.
 */
import { spawn } from "node:child_process";

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
