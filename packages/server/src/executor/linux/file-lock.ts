/**
 * # file-lock
 *
 * An exclusive lock on a file shared by every process on this host (`flock(2)`), so two servers on one data
 * directory never build the same image at once. Node has no flock binding, so a child `flock` (util-linux)
 * takes the lock and holds it while it waits on a pipe from us: closing the pipe releases the lock, and so does
 * this process's death, however it dies. A lock is never "stale".
 */
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

export interface FileLock {
  /** Releases the lock; resolves once it is released. Idempotent. */
  release(): Promise<void>;
}

/**
 * Takes an exclusive lock on `path` (created if missing). With `wait: false` it resolves null at once when
 * another process holds the lock; otherwise it waits for it.
 */
export function acquireFileLock(path: string, options: { wait: boolean }): Promise<FileLock | null> {
  mkdirSync(dirname(path), { recursive: true });
  return new Promise((resolve, reject) => {
    const args = [
      ...(options.wait ? [] : ["--nonblock"]),
      "--exclusive",
      path,
      "sh",
      "-c",
      "echo locked; exec cat",
    ];
    const child = spawn("flock", args, { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    let stderr = "";
    let locked = false;
    const exited = new Promise<void>((done) => child.on("close", () => done()));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
      if (!locked && output.includes("locked")) {
        locked = true;
        let released: Promise<void> | undefined;
        resolve({
          release: () => {
            released ??= (async () => {
              child.stdin.end();
              await exited;
            })();
            return released;
          },
        });
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (locked) return;
      if (code === 1 && !options.wait) resolve(null);
      else reject(new Error(`flock ${path}: exit ${code}: ${stderr.trim()}`));
    });
  });
}
