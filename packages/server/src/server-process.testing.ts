/**
 * `svc server` as an operator runs it, in a child process of its own on a data directory that outlives it: for
 * the tests that kill a server (SIGKILL) and start it again on the same data, and check what the new process
 * finds. Test servers in this process are testing.ts's startTestServer.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { removeLeftovers } from "./executor/linux/test-support.ts";
import { TEST_IMAGES_DIR } from "./testing.ts";

const CLI_MAIN = fileURLToPath(new URL("../../cli/src/main.ts", import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  /** The control API, as the server printed it. */
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The server's stdout and stderr so far (the last 16 KiB), for failure messages. */
  output: () => string;
}

/** A fresh data directory whose `images` is the tests' shared image cache (the default image is built once). */
export async function serverDataDir(prefix: string): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), prefix));
  await mkdir(TEST_IMAGES_DIR, { recursive: true });
  await symlink(TEST_IMAGES_DIR, path.join(dataDir, "images"));
  return dataDir;
}

/**
 * `svc server` on free ports and `dataDir`; resolves once it prints its control API's URL, rejects when it exits
 * first or prints none within `timeoutMs` (then it is killed).
 */
export function startServerProcess(dataDir: string, timeoutMs: number): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    [
      ...[CLI_MAIN, "server", "--port", "0", "--proxy-port", "0", "--data-dir", dataDir],
      ...["--log-level", "error", "--image-cache-dir", path.dirname(TEST_IMAGES_DIR)],
    ],
    { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  const record = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-16_384);
  };
  child.stdout?.on("data", record);
  child.stderr?.on("data", record);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once("exit", (code, signal) => done({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server printed no URL within ${timeoutMs} ms: ${output}`));
    }, timeoutMs);
    const onData = () => {
      const url = /control API on (http:\/\/\S+)/.exec(output)?.[1];
      if (!url) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      resolve({ child, url, exited, output: () => output });
    };
    child.stdout?.on("data", onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code ?? signal}) before serving: ${output}`));
    });
  });
}

/** Stops a server that still runs: SIGTERM, then SIGKILL when it has not exited within `graceMs`. */
export async function stopServerProcess(server: ServerProcess, graceMs = 15_000): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill("SIGTERM");
  const late = new Promise<"late">((resolve) => setTimeout(resolve, graceMs, "late").unref());
  if ((await Promise.race([server.exited, late])) === "late") server.child.kill("SIGKILL");
  await server.exited;
}

/** removeLeftovers, then the data directory itself. */
export async function removeDataDir(dataDir: string): Promise<void> {
  await removeLeftovers(dataDir);
  await rm(dataDir, { recursive: true, force: true });
}
