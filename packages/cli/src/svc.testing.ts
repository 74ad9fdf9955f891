/** The `svc` command for the CLI's tests, run as a user's shell runs it: a child process of its own. */
import { spawn } from "node:child_process";
import path from "node:path";

const MAIN = path.join(import.meta.dirname, "main.ts");

/** The compile cache scripts/tests.ts gives the test files: a command's modules are compiled once a run. */
const compileCache = process.env.NODE_COMPILE_CACHE
  ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }
  : {};

/** What one `svc` command did: its exit status and what it printed. */
export interface SvcRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `svc <args>` with only PATH and `env` in its environment (and the test run's Node compile cache, when it
 * has one), in `cwd` (default this process's), with `input` on its stdin (without it, no stdin at all); resolves
 * when it has exited and closed its output.
 */
export function runSvc(
  args: string[],
  env: Record<string, string> = {},
  options: { cwd?: string; input?: string | Uint8Array } = {},
): Promise<SvcRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], {
      env: { PATH: process.env.PATH ?? "", ...compileCache, ...env },
      cwd: options.cwd,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d) => {
      stdout += d;
    });
    child.stderr?.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(options.input);
  });
}
