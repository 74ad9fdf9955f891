import { type ChildProcess, type SpawnOptions, type StdioOptions, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { ServiceError } from "@svc/contract/errors";
import {
  DEFAULT_PROCESS_USER,
  type OutputStream,
  type Process,
  type ProcessStatus,
  type StartProcessRequest,
} from "@svc/contract/runtime";
import { MemoryCgroup } from "./memory-cgroup.ts";
import { OutputStore } from "./output.ts";
import type { ProcessCgroups } from "./process-cgroups.ts";
import { signalNumberOfName } from "./signals.ts";
import { type ResolvedUser, resolveUser, UserDatabase } from "./users.ts";

export interface ProcessManagerOptions {
  /**
   * The user of requests that name none. Default `svc-user`; when that user does not exist (a development
   * host), or the daemon is not root and cannot switch to it, the daemon's own user (logged once). A default
   * given explicitly must resolve.
   */
  defaultUser?: string;
  /**
   * Environment of every process under the request's `env` and over the clean base: an OCI image's `ENV`
   * (its PATH included), given by the executor.
   */
  defaultEnv?: Readonly<Record<string, string>>;
  /** Working directory of requests that name none (an OCI image's `WORKDIR`); default the user's home. */
  defaultWorkingDir?: string;
  /**
   * A memory cgroup directory (v1 `/sys/fs/cgroup/memory/<group>`, or a v2 group): children are moved into it
   * right after they start, and its `oom_kill` counter tells OOM kills from other SIGKILLs.
   */
  memoryCgroup?: string;
  /**
   * One cgroup per process (process-cgroups.ts): a kill or a timeout ends the whole tree with cgroup.kill, and
   * each process's OOM kills are counted in its own memory group. Without it, process groups and `memoryCgroup`.
   */
  processCgroups?: ProcessCgroups;
  /** Where output beyond the memory limit is spooled. Default: a fresh directory under the OS temp dir. */
  spoolDir?: string;
  /** Bytes of output each running process keeps in memory before spooling older lines. Default 8 MiB. */
  maxOutputMemoryBytes?: number;
  /** Bytes of output an ended process keeps in memory. Default 256 KiB. */
  maxEndedOutputMemoryBytes?: number;
  /** Largest spool file per process; beyond it the oldest in-memory output is dropped with a marker. Default 1 GiB. */
  maxSpoolBytesPerProcess?: number;
  /** Longest line; longer ones are cut into pieces. Default 16 MiB. */
  maxLineBytes?: number;
  /** Ended processes kept for reading; the oldest are forgotten beyond this. Default 1000. */
  maxEndedProcesses?: number;
  /** The passwd file users are resolved from. Default `/etc/passwd`. */
  passwdFile?: string;
  /** Where operational messages go. Default: stderr. */
  log?: (message: string) => void;
}

type StartRequest = StartProcessRequest & { timeout?: number };

/** Where a process's memory is accounted, and the OOM-kill count there before it started (see #groupFor). */
interface ProcessGroup {
  cgroupName: string | undefined;
  memory: MemoryCgroup | undefined;
  oomBaseline: number | undefined;
}

/** PATH of every process: the request's `env` may replace it. */
const BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** How long a DELETE waits for the killed process to be reaped before answering. */
const KILL_WAIT_MS = 5000;

/** One process the daemon started, running or ended. */
export class ManagedProcess {
  readonly handle: number;
  readonly pid: number;
  readonly command: string;
  readonly args: string[];
  readonly startedAt: number;
  readonly output: OutputStore;
  readonly #child: ChildProcess;
  readonly #stdinPiped: boolean;
  #stdinOpen: boolean;
  #stdinQueue: Promise<void> = Promise.resolve();
  status: ProcessStatus = "running";
  exitCode: number | null = null;
  signal: number | null = null;
  endedAt: number | null = null;
  oomKilled = false;
  /** The daemon itself sent the SIGKILL (DELETE, timeout, shutdown): not an OOM kill. */
  killedByDaemon = false;
  /** Its own cgroup (ProcessCgroups), when the daemon has them. */
  cgroup: string | undefined;
  /** Resolves when the process has exited (its stdio may still be open). */
  readonly exited: Promise<void>;
  /** Resolves when the process has exited and its output streams have closed. */
  readonly closed: Promise<void>;

  constructor(init: {
    handle: number;
    child: ChildProcess & { pid: number };
    command: string;
    args: string[];
    output: OutputStore;
    stdinPiped: boolean;
  }) {
    this.handle = init.handle;
    this.pid = init.child.pid;
    this.#child = init.child;
    this.command = init.command;
    this.args = init.args;
    this.startedAt = Date.now();
    this.output = init.output;
    this.#stdinPiped = init.stdinPiped;
    this.#stdinOpen = init.stdinPiped;
    this.exited = new Promise((done) => init.child.once("exit", () => done()));
    this.closed = new Promise((done) => init.child.once("close", () => done()));
    init.child.stdin?.on("error", () => {
      this.#stdinOpen = false;
    });
    init.child.stdin?.on("close", () => {
      this.#stdinOpen = false;
    });
  }

  get running(): boolean {
    return this.status === "running";
  }

  get stdinWritable(): boolean {
    return this.#stdinPiped && this.#stdinOpen && this.running;
  }

  toRecord(): Process {
    return {
      handle: this.handle,
      pid: this.pid,
      status: this.status,
      stdin_writable: this.stdinWritable,
      command: this.command,
      args: this.args,
      started_at: this.startedAt,
      exit_code: this.exitCode,
      signal: this.signal,
      ended_at: this.endedAt,
      oom_killed: this.oomKilled,
    };
  }

  /** Writes a stream of bytes to stdin, after any write in progress; resolves once written. */
  writeStdin(source: AsyncIterable<Buffer | string>): Promise<void> {
    const run = this.#stdinQueue.then(() => this.#write(source));
    this.#stdinQueue = run.catch(() => {});
    return run;
  }

  async #write(source: AsyncIterable<Buffer | string>): Promise<void> {
    const stdin = this.#child.stdin;
    for await (const chunk of source) {
      if (!stdin || !this.stdinWritable) throw notWritable(this);
      if (!stdin.write(chunk)) {
        await new Promise<void>((done) => {
          const finish = () => {
            stdin.off("drain", finish);
            stdin.off("close", finish);
            done();
          };
          stdin.on("drain", finish);
          stdin.on("close", finish);
        });
      }
    }
    if (!this.stdinWritable) throw notWritable(this);
  }

  /** Closes stdin (EOF for the process); idempotent. */
  async closeStdin(): Promise<void> {
    if (!this.#stdinPiped) throw notWritable(this);
    await this.#stdinQueue;
    this.#stdinOpen = false;
    this.#child.stdin?.end();
  }

  /** Sends a signal to the process itself; false when it has ended. */
  sendSignal(signal: number): boolean {
    if (!this.running) return false;
    try {
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Sends a signal to the whole process group. After the leader ended, only while the pid has not been reused
   * (a live process with that pid means the group is gone: a pgid stays allocated while any member lives).
   */
  signalGroup(signal: number): void {
    if (!this.running && existsSync(`/proc/${this.pid}`)) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is empty.
    }
  }
}

function notWritable(process: ManagedProcess): ServiceError {
  const reason = !process.running
    ? "the process has ended"
    : 'stdin is not an open pipe (start the process with stdin_mode "pipe"; it may have been closed)';
  return new ServiceError("STDIN_NOT_WRITABLE", `stdin of process ${process.pid} is not writable: ${reason}`);
}

/**
 * Starts and tracks the processes of the runtime API. Each process runs in its own process group (a new
 * session), so a kill or a timeout ends it and every descendant that stayed in the group. Its environment is
 * a clean base (PATH, HOME, USER, LOGNAME, SHELL, LANG) with the request's `env` over it, never the daemon's
 * own environment.
 */
export class ProcessManager {
  /** Who processes run as when a request names no user. */
  readonly defaultUser: ResolvedUser;
  readonly startedAt = Date.now();
  readonly #processes = new Map<number, ManagedProcess>();
  readonly #users: UserDatabase;
  readonly #cgroup: MemoryCgroup | undefined;
  readonly #cgroups: ProcessCgroups | undefined;
  /** Makes the names of process cgroups unique across restarts of the daemon. */
  readonly #cgroupPrefix = `p${Date.now().toString(36)}`;
  readonly #spoolDir: string;
  readonly #ownsSpoolDir: boolean;
  readonly #log: (message: string) => void;
  readonly #maxMemory: number;
  readonly #maxEndedMemory: number;
  readonly #maxSpool: number;
  readonly #maxLine: number;
  readonly #maxEnded: number;
  readonly #isRoot: boolean;
  readonly #defaultEnv: Readonly<Record<string, string>>;
  readonly #defaultWorkingDir: string | undefined;
  #nextHandle = 1;
  #oomAdjustable = true;
  #cgroupJoinable = true;
  #closing = false;

  constructor(options: ProcessManagerOptions = {}) {
    this.#log = options.log ?? ((message) => process.stderr.write(`svc-daemon: ${message}\n`));
    this.#users = new UserDatabase(options.passwdFile);
    this.#cgroup = options.memoryCgroup ? new MemoryCgroup(options.memoryCgroup) : undefined;
    this.#cgroups = options.processCgroups;
    this.#maxMemory = positive(options.maxOutputMemoryBytes, 8 * 1024 * 1024, "maxOutputMemoryBytes");
    this.#maxEndedMemory = positive(
      options.maxEndedOutputMemoryBytes,
      256 * 1024,
      "maxEndedOutputMemoryBytes",
    );
    this.#maxSpool = positive(options.maxSpoolBytesPerProcess, 1024 * 1024 * 1024, "maxSpoolBytesPerProcess");
    this.#maxLine = positive(options.maxLineBytes, 16 * 1024 * 1024, "maxLineBytes");
    this.#maxEnded = positive(options.maxEndedProcesses, 1000, "maxEndedProcesses");
    this.#isRoot = process.getuid?.() === 0;
    this.defaultUser = this.#resolveDefaultUser(options.defaultUser);
    this.#defaultEnv = options.defaultEnv ?? {};
    this.#defaultWorkingDir = options.defaultWorkingDir;
    if (options.spoolDir) {
      mkdirSync(options.spoolDir, { recursive: true, mode: 0o700 });
      this.#spoolDir = options.spoolDir;
      this.#ownsSpoolDir = false;
    } else {
      this.#spoolDir = mkdtempSync(join(tmpdir(), "svc-daemon-spool-"));
      this.#ownsSpoolDir = true;
    }
  }

  get runningCount(): number {
    let count = 0;
    for (const p of this.#processes.values()) if (p.running) count++;
    return count;
  }

  /** Processes started since the daemon began (ended and forgotten ones included). */
  get totalCount(): number {
    return this.#nextHandle - 1;
  }

  list(): ManagedProcess[] {
    return [...this.#processes.values()].sort((a, b) => a.handle - b.handle);
  }

  /** The process with this pid; 404 PROCESS_NOT_FOUND otherwise. */
  get(pid: number): ManagedProcess {
    const found = this.#processes.get(pid);
    if (!found) throw new ServiceError("PROCESS_NOT_FOUND", `no process with pid ${pid}`);
    return found;
  }

  /**
   * Starts a process. Bad users, working directories and commands that cannot be executed are 400s
   * (INVALID_USER, INVALID_WORKING_DIR, SPAWN_FAILED), thrown before anything runs.
   */
  async start(request: StartRequest): Promise<ManagedProcess> {
    if (this.#closing) throw new ServiceError("SPAWN_FAILED", "the daemon is shutting down");
    const { user, switchUser } = this.#runAs(request.user);
    const cwd = this.#workingDir(request.working_dir, user);
    const env: Record<string, string> = {
      PATH: BASE_PATH,
      HOME: user.home,
      USER: user.name,
      LOGNAME: user.name,
      SHELL: this.#users.byUid(user.uid)?.shell || "/bin/sh",
      LANG: "C.UTF-8",
      ...this.#defaultEnv,
      ...request.env,
    };
    const capture = (mode: string | undefined) => (mode === "discard" ? "ignore" : "pipe");
    const stdinPiped = request.stdin_mode === "pipe";
    const stdio: StdioOptions = [
      stdinPiped ? "pipe" : "ignore",
      capture(request.stdout_mode),
      capture(request.stderr_mode),
    ];
    const args = request.args ?? [];
    const group = this.#groupFor();
    const child = await this.#spawn(request.command, args, group, {
      cwd,
      env,
      stdio,
      detached: true,
      ...(switchUser ? { uid: user.uid, gid: user.gid } : {}),
    });
    const managed = this.#manage(child, request.command, args, stdinPiped, group.cgroupName);
    this.#watchExit(managed, child, request.timeout, group);
    this.#register(managed);
    return managed;
  }

  /** The user a request runs as; a daemon that is not root can start processes only as itself. */
  #runAs(requested: StartRequest["user"]): { user: ResolvedUser; switchUser: boolean } {
    const user = requested === undefined ? this.defaultUser : resolveUser(requested, this.#users);
    const switchUser = user.uid !== process.getuid?.() || user.gid !== process.getgid?.();
    if (switchUser && !this.#isRoot) {
      throw new ServiceError(
        "INVALID_USER",
        `the daemon runs as uid ${process.getuid?.()} (not root) and can only start processes as that user`,
      );
    }
    return { user, switchUser };
  }

  /**
   * Where the next process's memory is accounted: its own cgroup when the daemon has them, else the shared
   * memory cgroup, whose OOM-kill count before the start tells this process's OOM kill from an earlier one.
   */
  #groupFor(): ProcessGroup {
    const cgroupName = this.#cgroups ? `${this.#cgroupPrefix}-${this.#nextHandle}` : undefined;
    const memory =
      this.#cgroups && cgroupName && this.#cgroups.hierarchies.includes("memory")
        ? new MemoryCgroup(join(this.#cgroups.root, "workload", "memory", cgroupName))
        : this.#cgroup;
    const oomBaseline = cgroupName && memory ? 0 : memory?.oomKillCount();
    return { cgroupName, memory, oomBaseline };
  }

  /** Spawns the process in its group; a failed spawn removes the group and is SPAWN_FAILED. */
  async #spawn(
    command: string,
    args: string[],
    { cgroupName }: ProcessGroup,
    options: SpawnOptions,
  ): Promise<ChildProcess & { pid: number }> {
    const run = () => spawn(command, args, options);
    let child: ChildProcess;
    try {
      child = this.#cgroups && cgroupName ? this.#cgroups.spawnInto(cgroupName, run) : run();
    } catch (error) {
      if (cgroupName) this.#cgroups?.remove(cgroupName);
      throw spawnFailed(command, error);
    }
    if (child.pid === undefined) {
      const [error] = (await once(child, "error")) as [Error];
      if (cgroupName) this.#cgroups?.remove(cgroupName);
      throw spawnFailed(command, error);
    }
    if (!cgroupName) this.#prepareChild(child.pid);
    else this.#cgroups?.raiseOomScore(child.pid);
    return child as ChildProcess & { pid: number };
  }

  /** The record of a started process, with its output captured into a store that spools beyond its memory. */
  #manage(
    child: ChildProcess & { pid: number },
    command: string,
    args: string[],
    stdinPiped: boolean,
    cgroupName: string | undefined,
  ): ManagedProcess {
    const output = new OutputStore({
      spoolPath: join(this.#spoolDir, `${this.#nextHandle}.spool`),
      maxMemoryBytes: this.#maxMemory,
      maxLineBytes: this.#maxLine,
      maxSpoolBytes: this.#maxSpool,
      onDrop: (reason) => this.#log(`process ${child.pid}: dropping old output: ${reason}`),
    });
    const managed = new ManagedProcess({
      handle: this.#nextHandle++,
      child,
      command,
      args,
      output,
      stdinPiped,
    });
    managed.cgroup = cgroupName;
    capturePipe(child.stdout, "stdout", output);
    capturePipe(child.stderr, "stderr", output);
    child.on("error", (error) => this.#log(`process ${managed.pid}: ${error.message}`));
    return managed;
  }

  /**
   * Ends the process at its timeout, and records how it ended: its exit code, or its signal, which is an OOM
   * kill when the kernel's count of them in its group went up and the daemon did not kill it.
   */
  #watchExit(
    managed: ManagedProcess,
    child: ChildProcess,
    timeoutSecs: number | undefined,
    group: ProcessGroup,
  ): void {
    const { cgroupName, memory, oomBaseline } = group;
    let timer: NodeJS.Timeout | undefined;
    if (timeoutSecs !== undefined) {
      timer = setTimeout(() => this.#kill(managed), timeoutSecs * 1000);
    }
    child.once("exit", (code, signalName) => {
      clearTimeout(timer);
      managed.endedAt = Date.now();
      if (code !== null) {
        managed.status = "exited";
        managed.exitCode = code;
      } else {
        const signal = signalNumberOfName(signalName ?? "") ?? 0;
        managed.signal = signal;
        const oom =
          signal === 9 &&
          !managed.killedByDaemon &&
          oomBaseline !== undefined &&
          (memory?.oomKillCount() ?? 0) > oomBaseline;
        managed.oomKilled = oom;
        managed.status = oom ? "oom_killed" : "signaled";
      }
      this.#forgetOldEnded();
      // Its group goes once empty: at once, or at a later start when detached descendants have ended.
      if (cgroupName) this.#cgroups?.remove(cgroupName);
      this.#sweepCgroups();
    });
    void managed.closed.then(() => managed.output.setMemoryLimit(this.#maxEndedMemory));
  }

  /** Makes the process addressable by its pid; an older record under a pid the kernel reused is dropped. */
  #register(managed: ManagedProcess): void {
    const previous = this.#processes.get(managed.pid);
    if (previous) {
      this.#processes.delete(managed.pid);
      void previous.output.dispose();
    }
    this.#processes.set(managed.pid, managed);
  }

  /** SIGKILL to the process's whole group; resolves once the process has been reaped (or after a bound). */
  async kill(pid: number): Promise<void> {
    const managed = this.get(pid);
    this.#kill(managed);
    if (managed.running) {
      await Promise.race([managed.exited, new Promise((done) => setTimeout(done, KILL_WAIT_MS).unref())]);
    }
  }

  /** Kills every process group, waits for them briefly, removes spooled output. Idempotent. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const all = [...this.#processes.values()];
    for (const managed of all) this.#kill(managed);
    await Promise.race([
      Promise.all(all.map((p) => p.exited)),
      new Promise((done) => setTimeout(done, KILL_WAIT_MS).unref()),
    ]);
    await Promise.all(all.map((p) => p.output.dispose()));
    this.#processes.clear();
    if (this.#ownsSpoolDir) rmSync(this.#spoolDir, { recursive: true, force: true });
  }

  #kill(managed: ManagedProcess): void {
    if (managed.running) managed.killedByDaemon = true;
    // The whole tree at once, descendants that left the process group included; the group as a fallback.
    if (managed.cgroup) this.#cgroups?.kill(managed.cgroup);
    managed.signalGroup(9);
  }

  /** Removes the empty groups of ended processes (their detached descendants kept them until now). */
  #sweepCgroups(): void {
    if (!this.#cgroups) return;
    const keep = new Set<string>();
    for (const p of this.#processes.values()) if (p.running && p.cgroup) keep.add(p.cgroup);
    this.#cgroups.sweep(keep);
  }

  #prepareChild(pid: number): void {
    // Done right after spawn (Node offers no pre-exec hook): the child has just exec'd.
    if (this.#cgroup && this.#cgroupJoinable) {
      try {
        this.#cgroup.addProcess(pid);
      } catch (error) {
        // ESRCH: the process has already exited, which says nothing about the cgroup.
        if ((error as NodeJS.ErrnoException).code !== "ESRCH") {
          this.#cgroupJoinable = false;
          this.#log(`cannot move processes into ${this.#cgroup.dir}: ${(error as Error).message}`);
        }
      }
    }
    if (this.#oomAdjustable) {
      try {
        // The OOM killer picks workloads before the daemon (raising needs no privilege).
        writeFileSync(`/proc/${pid}/oom_score_adj`, "1000");
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && code !== "ESRCH") {
          this.#oomAdjustable = false;
          this.#log(`cannot set oom_score_adj of processes: ${(error as Error).message}`);
        }
      }
    }
  }

  #workingDir(requested: string | undefined, user: ResolvedUser): string {
    if (requested === undefined && this.#defaultWorkingDir && isDirectory(this.#defaultWorkingDir))
      return this.#defaultWorkingDir;
    if (requested === undefined) return isDirectory(user.home) ? user.home : "/";
    const path = resolve(user.home, requested);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      throw new ServiceError("INVALID_WORKING_DIR", `working_dir "${requested}" does not exist`);
    }
    if (!stat.isDirectory()) {
      throw new ServiceError("INVALID_WORKING_DIR", `working_dir "${requested}" is not a directory`);
    }
    return path;
  }

  #resolveDefaultUser(configured: string | undefined): ResolvedUser {
    const name = configured ?? DEFAULT_PROCESS_USER;
    const own = (): ResolvedUser => {
      const uid = process.getuid?.() ?? 0;
      const entry = this.#users.byUid(uid);
      return {
        name: entry?.name ?? String(uid),
        uid,
        gid: process.getgid?.() ?? 0,
        home: entry?.home ?? homedir(),
      };
    };
    let user: ResolvedUser | undefined;
    let problem: string | undefined;
    try {
      user = resolveUser(name, this.#users);
    } catch (error) {
      problem = (error as Error).message;
    }
    if (user && !this.#isRoot && (user.uid !== process.getuid?.() || user.gid !== process.getgid?.())) {
      problem = `the daemon is not root and cannot start processes as ${name}`;
      user = undefined;
    }
    if (user) return user;
    if (configured !== undefined) throw new Error(`default user "${configured}": ${problem}`);
    const fallback = own();
    this.#log(
      `default user ${DEFAULT_PROCESS_USER} is not usable (${problem}); processes default to the daemon's own user ${fallback.name} (uid ${fallback.uid})`,
    );
    return fallback;
  }

  #forgetOldEnded(): void {
    let ended = 0;
    for (const p of this.#processes.values()) if (!p.running) ended++;
    if (ended <= this.#maxEnded) return;
    for (const [pid, p] of this.#processes) {
      if (ended <= this.#maxEnded) break;
      if (p.running) continue;
      this.#processes.delete(pid);
      void p.output.dispose();
      ended--;
    }
  }
}

function capturePipe(stream: Readable | null, name: OutputStream, output: OutputStore): void {
  if (!stream) {
    output.endStream(name);
    return;
  }
  stream.on("data", (chunk: Buffer) => {
    if (!output.write(name, chunk)) {
      stream.pause();
      output.onceFlowing(() => stream.resume());
    }
  });
  stream.on("error", () => {});
  stream.once("close", () => output.endStream(name));
}

function spawnFailed(command: string, error: unknown): ServiceError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === "ENOENT"
      ? "command not found"
      : code === "EACCES"
        ? "permission denied (not executable, or not accessible to the user)"
        : (error as Error).message;
  return new ServiceError("SPAWN_FAILED", `cannot start "${command}": ${reason}`);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
