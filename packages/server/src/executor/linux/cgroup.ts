/**
 * # cgroup
 *
 * The resource limits of a sandbox on a cgroup v1 hybrid host (recipe section 3). Each sandbox gets one
 * directory `<parent>/<id>` in every v1 hierarchy it needs (memory, cpu, cpuacct, pids, freezer; a hierarchy
 * that holds several of them, like `cpu,cpuacct`, is joined once) and one in the controller-less cgroup2 tree
 * (`unified`), whose `cgroup.kill`, `cgroup.freeze` and `cgroup.events` give a reliable kill and freeze.
 *
 * Inside each, two siblings: `daemon` (the runtime daemon: the launcher writes its own pid into every path
 * `createCgroups` returns, then execs the sandbox) and `workload` (the user's processes: the daemon starts each
 * process tree in a child group there, process-cgroups.ts of the daemon). The sandbox's limits are on `<id>`;
 * `workload` has less memory and fewer tasks than that, so a fork bomb or a memory storm leaves the daemon a
 * reserve (`daemonReserve`), and `daemon` has a larger CPU weight, so a CPU storm does not starve it. `workload`
 * and its control files belong to nobody (65534), so a uid-0 process of the sandbox, which has no capability,
 * cannot raise its limits through the bound directories; the daemon (CAP_DAC_OVERRIDE) creates groups there.
 * cpuset: only `<id>` itself, with every CPU of its parent, holds the whole sandbox. It limits nothing (the CPU
 * quota does, and the launcher pins CPUs); it is there because lxcfs answers /proc/cpuinfo and /proc/stat with
 * the host's when the sandbox's init sits in the root cpuset (`cpusetDir`).
 *
 * Everything here is a plain file operation in this process: no tool is spawned.
 */
import { type Dirent, existsSync, readFileSync, watch } from "node:fs";
import { chown, mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The v1 controllers a sandbox joins. */
export const V1_CONTROLLERS = ["memory", "cpu", "cpuacct", "pids", "freezer"] as const;
export type V1Controller = (typeof V1_CONTROLLERS)[number];

/** The directory under each hierarchy's root that holds one directory per sandbox. */
export const DEFAULT_CGROUP_PARENT = "svc";
/** `pids.max` when the caller gives none: threads count, so leave room for a busy workload. */
export const DEFAULT_PIDS_MAX = 4096;
/** An idle daemon plus bwrap is about 9 tasks; below this a sandbox could not start its own tools. */
export const MIN_PIDS_MAX = 128;
const CFS_PERIOD_US = 100_000;
const MIN_CFS_QUOTA_US = 1_000;

/** CPU weight (v1 cpu.shares) of the daemon's group next to the workload's default 1024. */
export const DAEMON_CPU_SHARES = 8192;
/** The uid and gid that own `workload` (nobody): no process of the sandbox runs as it. */
const WORKLOAD_OWNER = 65534;

/** The two groups inside a sandbox's cgroup. */
export type SandboxGroup = "daemon" | "workload";

/**
 * What the daemon keeps for itself out of the sandbox's limits: a quarter of the memory (32 to 192 MiB) and an
 * eighth of the tasks (32 to 256); the workload gets the rest.
 */
export function daemonReserve(limits: CgroupLimits): { memoryMb: number; pids: number } {
  const pids = Math.max(MIN_PIDS_MAX, Math.floor(limits.pids ?? DEFAULT_PIDS_MAX));
  return {
    memoryMb: Math.min(192, Math.max(32, Math.floor(limits.memoryMb / 4))),
    pids: Math.min(256, Math.max(32, Math.floor(pids / 8))),
  };
}

export interface CgroupLimits {
  /** CPU time as a number of CPUs (0.5 is half of one CPU); enforced by CFS quota. */
  cpus: number;
  /** Memory in MiB; swap use beyond it is 0. */
  memoryMb: number;
  /** Tasks (processes and threads) at most; raised to MIN_PIDS_MAX, DEFAULT_PIDS_MAX when absent. */
  pids?: number;
}

/** Where the hierarchies are mounted: the v1 mount point of each controller, and the cgroup2 mount. */
export interface CgroupLayout {
  v1: Record<V1Controller, string>;
  unified: string;
  /** The cpuset hierarchy, when mounted (see the module comment). */
  cpuset?: string;
}

export interface CgroupScope {
  /** Directory under each hierarchy's root; several servers (or tests) on one host use different ones. */
  parent?: string;
  /** Mount points; read from /proc/self/mountinfo when absent. */
  layout?: CgroupLayout;
}

export interface CgroupUsage {
  memoryBytes: number;
  memoryPeakBytes: number;
  /** CPU time used since creation, in nanoseconds (cpuacct.usage). */
  cpuNs: number;
  tasks: number;
}

export class CgroupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CgroupError";
  }
}

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,199}$/;

function checkId(id: string): void {
  if (!ID_PATTERN.test(id)) throw new CgroupError(`not a valid cgroup name: ${JSON.stringify(id)}`);
}

let detectedLayout: CgroupLayout | undefined;

/**
 * Finds the mount point of each v1 controller and of the cgroup2 tree in a mountinfo text. Throws when the host
 * lacks one of them (a pure cgroup2 host, for instance): this module needs the hybrid layout.
 */
export function parseCgroupLayout(mountinfo: string): CgroupLayout {
  const v1: Partial<Record<V1Controller, string>> = {};
  let unified: string | undefined;
  let cpuset: string | undefined;
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right) continue;
    const fields = left.split(" ");
    const [fsType, , superOptions = ""] = right.split(" ");
    // Only mounts of a hierarchy's root: a bind mount of a sub-directory would misplace every path.
    if (fields[3] !== "/") continue;
    const mountPoint = fields[4].replace(/\\040/g, " ");
    if (fsType === "cgroup2") unified ??= mountPoint;
    if (fsType !== "cgroup") continue;
    const options = new Set(superOptions.split(","));
    for (const controller of V1_CONTROLLERS) if (options.has(controller)) v1[controller] ??= mountPoint;
    if (options.has("cpuset")) cpuset ??= mountPoint;
  }
  const missing: string[] = V1_CONTROLLERS.filter((controller) => !v1[controller]);
  if (!unified) missing.push("cgroup2");
  if (missing.length > 0) throw new CgroupError(`cgroup hierarchies not mounted: ${missing.join(", ")}`);
  return { v1: v1 as Record<V1Controller, string>, unified: unified as string, cpuset };
}

/** The layout of this host, read once. */
export function cgroupLayout(scope: CgroupScope = {}): CgroupLayout {
  if (scope.layout) return scope.layout;
  detectedLayout ??= parseCgroupLayout(readFileSync("/proc/self/mountinfo", "utf8"));
  return detectedLayout;
}

/** Names of the distinct hierarchies a sandbox joins (`memory`, `cpu`, ..., `unified`) and their mounts. */
function hierarchyMounts(scope: CgroupScope): Array<[string, string]> {
  const layout = cgroupLayout(scope);
  const seen = new Map<string, string>();
  for (const controller of V1_CONTROLLERS) {
    const mount = layout.v1[controller];
    if (![...seen.values()].includes(mount)) seen.set(controller, mount);
  }
  seen.set("unified", layout.unified);
  return [...seen];
}

/**
 * The directories of one of the sandbox's two groups, by hierarchy name (`memory`, `cpu`, `pids`, `freezer`,
 * `unified`...): the executor binds them into the sandbox for the daemon.
 */
export function sandboxGroupDirs(
  id: string,
  group: SandboxGroup,
  scope: CgroupScope = {},
): Record<string, string> {
  checkId(id);
  const parent = scope.parent ?? DEFAULT_CGROUP_PARENT;
  return Object.fromEntries(
    hierarchyMounts(scope).map(([name, mount]) => [name, join(mount, parent, id, group)]),
  );
}

/** Whether the sandbox's daemon group still has a process (false when it is gone or has no such group). */
export async function daemonGroupPopulated(id: string, scope: CgroupScope = {}): Promise<boolean> {
  try {
    const events = await readFile(
      join(sandboxGroupDirs(id, "daemon", scope).unified, "cgroup.events"),
      "utf8",
    );
    return parseKeyValues(events).get("populated") === "1";
  } catch {
    return false;
  }
}

interface Dirs {
  memory: string;
  cpu: string;
  cpuacct: string;
  pids: string;
  freezer: string;
  unified: string;
  /** The sandbox's cpuset group, when the host mounts cpuset (not in `all`: it has no daemon or workload). */
  cpuset?: string;
  /** Every distinct directory, v1 ones first, the unified one last. */
  all: string[];
}

function parentDirs(scope: CgroupScope): string[] {
  const layout = cgroupLayout(scope);
  const parent = scope.parent ?? DEFAULT_CGROUP_PARENT;
  const mounts = [...new Set(V1_CONTROLLERS.map((controller) => layout.v1[controller])), layout.unified];
  return mounts.map((mount) => join(mount, parent));
}

function dirs(id: string, scope: CgroupScope): Dirs {
  checkId(id);
  const layout = cgroupLayout(scope);
  const parent = scope.parent ?? DEFAULT_CGROUP_PARENT;
  const of = (mount: string) => join(mount, parent, id);
  const v1 = Object.fromEntries(V1_CONTROLLERS.map((c) => [c, of(layout.v1[c])])) as Record<
    V1Controller,
    string
  >;
  const all = [...new Set(Object.values(v1)), of(layout.unified)];
  return { ...v1, unified: of(layout.unified), cpuset: layout.cpuset && of(layout.cpuset), all };
}

async function readNumber(file: string): Promise<number> {
  return Number((await readFile(file, "utf8")).trim());
}

/** Reads `key value` lines (cgroup.events, memory.oom_control, pids.events). */
export function parseKeyValues(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split("\n")) {
    const [key, value] = line.trim().split(/\s+/);
    if (key && value !== undefined) values.set(key, value);
  }
  return values;
}

async function readPids(dir: string): Promise<number[]> {
  try {
    const text = await readFile(join(dir, "cgroup.procs"), "utf8");
    return text.split("\n").filter(Boolean).map(Number);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * Creates the sandbox's cgroups with its limits and returns the `cgroup.procs` files a launcher writes its pid
 * into (the unified one last). Creating again over existing directories only sets the limits again.
 */
export async function createCgroups(
  id: string,
  limits: CgroupLimits,
  scope: CgroupScope = {},
): Promise<string[]> {
  if (!(limits.cpus > 0) || !Number.isFinite(limits.cpus))
    throw new CgroupError(`invalid cpus: ${limits.cpus}`);
  if (!Number.isInteger(limits.memoryMb) || limits.memoryMb < 1) {
    throw new CgroupError(`invalid memoryMb: ${limits.memoryMb}`);
  }
  const d = dirs(id, scope);
  const daemon = sandboxGroupDirs(id, "daemon", scope);
  const workload = sandboxGroupDirs(id, "workload", scope);
  try {
    for (const dir of [...d.all, ...Object.values(daemon), ...Object.values(workload)]) {
      await mkdir(dir, { recursive: true });
    }
    const pids = Math.max(MIN_PIDS_MAX, Math.floor(limits.pids ?? DEFAULT_PIDS_MAX));
    const reserve = daemonReserve(limits);
    await setMemoryLimit(d.memory, limits.memoryMb);
    await setMemoryLimit(workload.memory, Math.max(1, limits.memoryMb - reserve.memoryMb));

    const quota = Math.max(MIN_CFS_QUOTA_US, Math.round(limits.cpus * CFS_PERIOD_US));
    // The same quota again on the daemon's group (the sandbox's already caps it): lxcfs's `--enable-cfs` counts
    // the CPUs in /proc/cpuinfo and /proc/stat from the quota of the group of the sandbox's init, the daemon.
    // A child's quota may not exceed its parent's: the daemon's is lifted while the sandbox's changes (a start
    // runs with the host's CPUs, then lowers them).
    await writeFile(join(daemon.cpu, "cpu.cfs_quota_us"), "-1");
    await writeFile(join(d.cpu, "cpu.cfs_period_us"), String(CFS_PERIOD_US));
    await writeFile(join(d.cpu, "cpu.cfs_quota_us"), String(quota));
    await writeFile(join(daemon.cpu, "cpu.cfs_period_us"), String(CFS_PERIOD_US));
    await writeFile(join(daemon.cpu, "cpu.cfs_quota_us"), String(quota));
    await writeFile(join(daemon.cpu, "cpu.shares"), String(DAEMON_CPU_SHARES));

    await writeFile(join(d.pids, "pids.max"), String(pids));
    await writeFile(join(workload.pids, "pids.max"), String(Math.max(1, pids - reserve.pids)));
    await disown([...Object.values(workload), ...Object.values(daemon)]);
    const layout = cgroupLayout(scope);
    if (layout.cpuset) await createCpuset(layout.cpuset, join(scope.parent ?? DEFAULT_CGROUP_PARENT, id));
  } catch (error) {
    await removeEmptyDirs([...Object.values(daemon), ...Object.values(workload), ...d.all]);
    if (d.cpuset) await removeEmptyDirs([d.cpuset]);
    throw error;
  }
  const procs = Object.values(daemon).map((dir) => join(dir, "cgroup.procs"));
  // Before the unified tree's, which the launcher's callers expect last.
  if (d.cpuset) procs.splice(-1, 0, join(d.cpuset, "cgroup.procs"));
  return procs;
}

/**
 * Makes `<mount>/<path>` and every missing group above it a cpuset group with all of its parent's CPUs and
 * memory nodes (a v1 cpuset group starts empty, and a task cannot join an empty one). Idempotent.
 */
async function createCpuset(mount: string, path: string): Promise<void> {
  let parent = mount;
  for (const segment of path.split("/").filter(Boolean)) {
    const dir = join(parent, segment);
    await mkdir(dir, { recursive: true });
    for (const file of ["cpuset.mems", "cpuset.cpus"]) {
      if ((await readFile(join(dir, file), "utf8")).trim() !== "") continue;
      await writeFile(join(dir, file), await readFile(join(parent, file), "utf8"));
    }
    parent = dir;
  }
}

/** memory.limit_in_bytes and, where the kernel has it, memsw at the same value (no swap beyond the limit). */
async function setMemoryLimit(dir: string, memoryMb: number): Promise<void> {
  const memoryBytes = String(memoryMb * 1024 * 1024);
  const memsw = join(dir, "memory.memsw.limit_in_bytes");
  const hasMemsw = existsSync(memsw);
  // memsw must stay >= limit: when raising, memsw has to go first, when lowering, last.
  if (hasMemsw) await writeFile(memsw, memoryBytes).catch(() => {});
  await writeFile(join(dir, "memory.limit_in_bytes"), memoryBytes);
  if (hasMemsw) await writeFile(memsw, memoryBytes);
}

/** Gives the workload's directories and their control files to nobody (see the module comment). */
async function disown(list: string[]): Promise<void> {
  for (const dir of list) {
    await chown(dir, WORKLOAD_OWNER, WORKLOAD_OWNER);
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.isFile()) await chown(join(dir, entry.name), WORKLOAD_OWNER, WORKLOAD_OWNER);
    }
  }
}

/** Every directory of a cgroup tree, the deepest first (for removal). */
async function treeDirs(dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const below: string[] = [];
  for (const entry of entries)
    if (entry.isDirectory()) below.push(...(await treeDirs(join(dir, entry.name))));
  return [...below, dir];
}

/** Pids in a cgroup and every group below it. */
async function readTreePids(dir: string): Promise<number[]> {
  return (await Promise.all((await treeDirs(dir)).map(readPids))).flat();
}

async function removeEmptyDirs(list: string[]): Promise<void> {
  for (const dir of list) await rmdir(dir).catch(() => {});
}

/** The sandbox's memory cgroup directory: `memory.oom_control` there counts its OOM kills. */
export function memoryCgroupDir(id: string, scope: CgroupScope = {}): string {
  return dirs(id, scope).memory;
}

/** The sandbox's cgroup2 directory (cgroup.events, cgroup.kill, cgroup.freeze). */
export function unifiedCgroupDir(id: string, scope: CgroupScope = {}): string {
  return dirs(id, scope).unified;
}

/**
 * How many processes of the sandbox the kernel's OOM killer has killed (memory.oom_control's `oom_kill`). A v1
 * group counts only its own tasks' kills, so the sandbox's groups (daemon, workload, each process's) are summed.
 */
export async function oomKillCount(id: string, scope: CgroupScope = {}): Promise<number> {
  const top = dirs(id, scope).memory;
  // The sandbox's own group first: a sandbox that is gone rejects (ENOENT).
  let total = Number(
    parseKeyValues(await readFile(join(top, "memory.oom_control"), "utf8")).get("oom_kill") ?? 0,
  );
  for (const dir of (await treeDirs(top)).filter((d) => d !== top)) {
    const text = await readFile(join(dir, "memory.oom_control"), "utf8").catch(() => "");
    total += Number(parseKeyValues(text).get("oom_kill") ?? 0);
  }
  return total;
}

/**
 * Resolves once `key` reads `value` in a `key value` file of cgroupfs (cgroup.events), woken by inotify
 * (cgroupfs signals changes of cgroup.events as modifications) and by a slow poll in case an event is missed.
 * Resolves false when `timeoutMs` passes first, and also when the file disappears (the group is gone).
 */
export async function waitForCgroupEvent(
  file: string,
  key: string,
  value: string,
  timeoutMs: number,
): Promise<boolean> {
  const check = async (): Promise<boolean | null> => {
    try {
      return parseKeyValues(await readFile(file, "utf8")).get(key) === value;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  };
  const first = await check();
  if (first !== false) return first === true;
  return new Promise<boolean>((resolve, reject) => {
    let done = false;
    let checking = false;
    const finish = (result: boolean | Error) => {
      if (done) return;
      done = true;
      watcher?.close();
      clearInterval(poll);
      clearTimeout(timer);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const recheck = () => {
      if (done || checking) return;
      checking = true;
      check().then(
        (ok) => {
          checking = false;
          if (ok !== false) finish(ok === true);
        },
        (error: Error) => finish(error),
      );
    };
    let watcher: ReturnType<typeof watch> | undefined;
    try {
      watcher = watch(file, recheck);
      watcher.on("error", () => {});
    } catch {
      // No inotify: the poll below still sees the change.
    }
    const poll = setInterval(recheck, 50);
    const timer = setTimeout(() => finish(false), timeoutMs);
    recheck();
  });
}

/** Freezes every process of the sandbox (cgroup2 `cgroup.freeze`); resolves once all are frozen. */
export async function freeze(id: string, scope: CgroupScope & { timeoutMs?: number } = {}): Promise<void> {
  const d = dirs(id, scope);
  const timeoutMs = scope.timeoutMs ?? 5000;
  if (existsSync(join(d.unified, "cgroup.freeze"))) {
    await writeFile(join(d.unified, "cgroup.freeze"), "1");
    if (!(await waitForCgroupEvent(join(d.unified, "cgroup.events"), "frozen", "1", timeoutMs))) {
      throw new CgroupError(`sandbox ${id} did not freeze within ${timeoutMs} ms`);
    }
    return;
  }
  await freezeV1(d.freezer, timeoutMs);
}

/** Lets a frozen sandbox run again. */
export async function thaw(id: string, scope: CgroupScope = {}): Promise<void> {
  const d = dirs(id, scope);
  if (existsSync(join(d.unified, "cgroup.freeze"))) await writeFile(join(d.unified, "cgroup.freeze"), "0");
  // A v1 freeze (kill fallback, or a host without cgroup.freeze) is undone as well.
  const state = join(d.freezer, "freezer.state");
  if (existsSync(state) && (await readFile(state, "utf8")).trim() !== "THAWED")
    await writeFile(state, "THAWED");
}

async function freezeV1(dir: string, timeoutMs: number): Promise<void> {
  const state = join(dir, "freezer.state");
  await writeFile(state, "FROZEN");
  const deadline = Date.now() + timeoutMs;
  while ((await readFile(state, "utf8")).trim() !== "FROZEN") {
    if (Date.now() > deadline) throw new CgroupError(`${dir} did not freeze within ${timeoutMs} ms`);
    await sleep(2);
  }
}

function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

export interface KillOptions extends CgroupScope {
  /** How long processes may take to go; default 5 s. */
  timeoutMs?: number;
  /** `freezer` forces the fallback for kernels without cgroup.kill (tests use it); default: cgroup.kill. */
  killWith?: "cgroup.kill" | "freezer";
}

/**
 * Kills every process of the sandbox and resolves once none is left. Uses cgroup2 `cgroup.kill` and waits for
 * `populated 0`; where the kernel lacks cgroup.kill, freezes the v1 freezer group (so nothing forks meanwhile),
 * SIGKILLs each pid and thaws. Processes that joined only some v1 groups (a launcher that died half-way) are
 * killed one by one. A sandbox without cgroups is a no-op. Throws when processes remain after `timeoutMs`.
 */
export async function killAll(id: string, options: KillOptions = {}): Promise<void> {
  const d = dirs(id, options);
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  const killFile = join(d.unified, "cgroup.kill");
  if (options.killWith !== "freezer" && existsSync(killFile)) {
    await writeFile(killFile, "1");
    const emptied = await waitForCgroupEvent(join(d.unified, "cgroup.events"), "populated", "0", timeoutMs);
    if (!emptied && existsSync(d.unified)) {
      throw new CgroupError(`sandbox ${id} still has processes ${timeoutMs} ms after cgroup.kill`);
    }
  } else if (existsSync(d.freezer)) {
    await freezeV1(d.freezer, timeoutMs);
    try {
      killPids(await readTreePids(d.freezer));
    } finally {
      await writeFile(join(d.freezer, "freezer.state"), "THAWED");
      // A suspended sandbox may be frozen by cgroup2 as well: a frozen task dies of SIGKILL only once thawed.
      const freeze = join(d.unified, "cgroup.freeze");
      if (existsSync(freeze)) await writeFile(freeze, "0");
    }
  }
  // Stragglers in single v1 groups; SIGKILLed tasks leave their cgroups in do_exit, before being reaped.
  for (;;) {
    const left = (await Promise.all(d.all.map(readTreePids))).flat();
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      throw new CgroupError(`sandbox ${id} still has processes after ${timeoutMs} ms: ${left.join(" ")}`);
    }
    killPids(left);
    await sleep(5);
  }
}

/**
 * Removes the sandbox's cgroups, killing what still runs in them first. Idempotent: missing directories are
 * fine.
 */
export async function removeCgroups(id: string, scope: KillOptions = {}): Promise<void> {
  const d = dirs(id, scope);
  const present = [...d.all, ...(d.cpuset ? [d.cpuset] : [])].filter((dir) => existsSync(dir));
  if (present.length === 0) return;
  const populated = (await Promise.all(present.map(readTreePids))).some((pids) => pids.length > 0);
  if (populated) await killAll(id, scope);
  // The daemon, workload and per-process groups first: a group with children cannot go.
  const all: string[] = [];
  for (const dir of present) all.push(...(await treeDirs(dir)));
  for (const dir of all) {
    for (let attempt = 0; ; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT") break;
        // EBUSY: a task that was still exiting, or a child group; retry briefly, then report.
        if (code !== "EBUSY" || attempt >= 50) throw error;
        killPids(await readPids(dir));
        await sleep(10);
      }
    }
  }
}

/** Ids of every sandbox that has a cgroup directory in any hierarchy (for leak checks and reconciliation). */
export async function listCgroups(scope: CgroupScope = {}): Promise<string[]> {
  const ids = new Set<string>();
  for (const parent of parentDirs(scope)) {
    let entries: Dirent[];
    try {
      entries = await readdir(parent, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    for (const entry of entries) if (entry.isDirectory()) ids.add(entry.name);
  }
  return [...ids].sort();
}

/** Current memory, peak memory, CPU time and task count of the sandbox. */
export async function usage(id: string, scope: CgroupScope = {}): Promise<CgroupUsage> {
  const d = dirs(id, scope);
  const [memoryBytes, memoryPeakBytes, cpuNs, tasks] = await Promise.all([
    readNumber(join(d.memory, "memory.usage_in_bytes")),
    readNumber(join(d.memory, "memory.max_usage_in_bytes")),
    readNumber(join(d.cpuacct, "cpuacct.usage")),
    readNumber(join(d.pids, "pids.current")),
  ]);
  return { memoryBytes, memoryPeakBytes, cpuNs, tasks };
}
