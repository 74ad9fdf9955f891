/**
 * # lxcfs
 *
 * Inside a 1-CPU, 1 GiB sandbox, `free`, `top` and every runtime that sizes itself (Python, JVMs, build tools)
 * would see the host's memory, CPUs and uptime. Debian's `lxcfs` serves /proc files that answer with the cgroup
 * limits of the reader's pid namespace's init (`meminfo` from its memory limit, `uptime` from its start;
 * `cpuinfo` and `stat` from its CPU quota, with `--enable-cfs`): the executor binds them over the sandbox's /proc
 * (`lxcfsBinds`). `nproc` reads the CPU affinity, so the launcher also pins each sandbox to as many CPUs as it
 * has (`sandboxCpuList`).
 *
 * One lxcfs serves the whole machine at `LXCFS_DIR`: our own mount point, not Debian's service's
 * (/var/lib/lxcfs), which runs without `--enable-cfs` and would show every sandbox the host's CPUs. It is
 * started here when needed, detached (it outlives this server, like the sandboxes that read it), and found
 * again by the next server. A lxcfs that was killed leaves
 * its FUSE mount behind ("Transport endpoint is not connected"): that mount is lazily unmounted and a new lxcfs
 * started. Two servers starting at once take turns through a lock that dies with its holder.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { acquireFileLock } from "./file-lock.ts";
import { runHostCommand } from "./host-command.ts";
import type { BindMount } from "./launch.ts";

/** Where the machine's lxcfs for sandboxes is mounted. */
export const LXCFS_DIR = "/var/lib/svc-lxcfs";
/** The /proc files lxcfs serves that the sandbox sees. */
export const LXCFS_PROC_FILES = [
  "meminfo",
  "cpuinfo",
  "stat",
  "uptime",
  "loadavg",
  "diskstats",
  "swaps",
] as const;
const START_TIMEOUT_MS = 20_000;

export interface LxcfsOptions {
  /** Mount point; default LXCFS_DIR. */
  dir?: string;
  /** The lxcfs binary; default `lxcfs` from PATH. */
  binary?: string;
}

type MountState = "serving" | "stale" | "absent";

/** Whether lxcfs answers at `dir`, left a dead mount there, or is not there. */
async function mountState(dir: string): Promise<MountState> {
  try {
    const meminfo = await readFile(join(dir, "proc", "meminfo"), "utf8");
    return meminfo.includes("MemTotal") ? "serving" : "absent";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A FUSE mount whose daemon died: ENOTCONN (or ECONNABORTED on some kernels).
    if (code === "ENOTCONN" || code === "ECONNABORTED") return "stale";
    try {
      await stat(dir);
    } catch (statError) {
      if ((statError as NodeJS.ErrnoException).code === "ENOTCONN") return "stale";
    }
    return "absent";
  }
}

let ensured: Promise<string> | undefined;

/**
 * Makes sure lxcfs serves at `dir` and returns the directory: reuses a live one, replaces a dead one, starts one
 * when there is none. Once per process (a later call after a failure tries again).
 */
export function ensureLxcfs(options: LxcfsOptions = {}): Promise<string> {
  ensured ??= startLxcfs(options).catch((error) => {
    ensured = undefined;
    throw error;
  });
  return ensured;
}

/** Checks again (a sandbox start after lxcfs died): restarts it when it is no longer serving. */
export async function checkLxcfs(options: LxcfsOptions = {}): Promise<string> {
  const dir = options.dir ?? LXCFS_DIR;
  if ((await mountState(dir)) === "serving") return dir;
  ensured = undefined;
  return ensureLxcfs(options);
}

async function startLxcfs(options: LxcfsOptions): Promise<string> {
  const dir = options.dir ?? LXCFS_DIR;
  if ((await mountState(dir)) === "serving") return dir;
  const lock = await acquireFileLock(`${dir}.lock`, { wait: true });
  try {
    const state = await mountState(dir);
    if (state === "serving") return dir;
    if (state === "stale") await runHostCommand("umount", ["-l", dir]);
    await mkdir(dir, { recursive: true });
    const log = openSync(`${dir}.log`, "a");
    try {
      // Foreground in its own session: it is nobody's child but init's once this server ends.
      const child = spawn(options.binary ?? "lxcfs", ["-f", "--enable-cfs", "--pidfile", `${dir}.pid`, dir], {
        detached: true,
        stdio: ["ignore", log, log],
      });
      child.on("error", () => {});
      child.unref();
    } finally {
      closeSync(log);
    }
    const deadline = Date.now() + START_TIMEOUT_MS;
    while ((await mountState(dir)) !== "serving") {
      if (Date.now() > deadline) {
        const tail = await readFile(`${dir}.log`, "utf8").catch(() => "");
        throw new Error(`lxcfs did not serve ${dir} within ${START_TIMEOUT_MS} ms: ${tail.slice(-500)}`);
      }
      await sleep(50);
    }
    return dir;
  } finally {
    await lock?.release();
  }
}

/** Read-only binds of lxcfs's /proc files over the sandbox's /proc. */
export function lxcfsBinds(dir: string): BindMount[] {
  return LXCFS_PROC_FILES.map((file) => ({ source: join(dir, "proc", file), dest: `/proc/${file}` }));
}

/**
 * The CPUs a sandbox of `cpus` is pinned to (`taskset -c` list): as many as it may use (rounded up), starting at
 * a CPU that differs between sandboxes (`slot`, e.g. the network index) so they spread over the host.
 */
export function sandboxCpuList(cpus: number, hostCpus: number, slot: number): string | undefined {
  const count = Math.min(hostCpus, Math.max(1, Math.ceil(cpus)));
  if (count >= hostCpus) return undefined;
  const first = ((slot % hostCpus) + hostCpus) % hostCpus;
  return Array.from({ length: count }, (_, i) => (first + i) % hostCpus).join(",");
}
