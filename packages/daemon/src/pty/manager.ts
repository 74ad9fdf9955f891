import { createHash, randomBytes } from "node:crypto";
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join, resolve } from "node:path";
import { ServiceError } from "@svc/contract/errors";
import { PTY_PRE_READY_BUFFER_BYTES } from "@svc/contract/pty-frames";
import { type CreatePtySessionRequest, clampPtySize, MAX_PTY_SESSIONS } from "@svc/contract/runtime";
import type * as NodePty from "node-pty";
import type { ProcessCgroups } from "../processes/process-cgroups.ts";
import { type ResolvedUser, UserDatabase } from "../processes/users.ts";
import { PtySession } from "./session.ts";

const requireModule = createRequire(import.meta.url);
let nodePty: typeof NodePty | undefined;

/**
 * node-pty (a native addon) is loaded at the first PTY, not at start: loading it was ~15 ms of the daemon's
 * start-up, and most sandboxes never open a PTY.
 */
function spawnPty(...args: Parameters<typeof NodePty.spawn>): NodePty.IPty {
  nodePty ??= requireModule("node-pty") as typeof NodePty;
  return nodePty.spawn(...args);
}

export interface PtyManagerOptions {
  /**
   * A session with no WebSocket attached and no input for this long ends: a running one is killed, an ended one
   * forgotten. Default 30 minutes; 0 keeps sessions until they are deleted.
   */
  ptyIdleTimeoutMs?: number;
  /** Bytes of recent output a session keeps for clients that connect later. Default 1 MiB. */
  ptyReplayBytes?: number;
  /** The passwd file the shell of the default user is read from. Default `/etc/passwd`. */
  passwdFile?: string;
  /** Each session in its own cgroup (process-cgroups.ts): deleting it ends its whole tree. */
  processCgroups?: ProcessCgroups;
  /** Environment under the request's `env` (an OCI image's `ENV`), as for processes. */
  defaultEnv?: Readonly<Record<string, string>>;
  /** Working directory of sessions that name none (an OCI image's `WORKDIR`). */
  defaultWorkingDir?: string;
  /**
   * How `setpriv` is run to switch to the default user: `["setpriv"]` (the image's) by default; the executor
   * gives the host's, through the host's loader, for images that have none.
   */
  setprivCommand?: readonly string[];
}

/** PATH of every PTY process: the request's `env` may replace it. */
const BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const DEFAULT_TERM = "xterm-256color";
const DEFAULT_IDLE_MS = 30 * 60 * 1000;
/** Ended sessions kept for reconnecting clients (their exit code and last output); the oldest go first. */
const MAX_ENDED_SESSIONS = MAX_PTY_SESSIONS;

/**
 * The PTY sessions of the sandbox. Sessions run as the daemon's default user with the same clean environment as
 * processes (PATH, HOME, USER, LOGNAME, SHELL, LANG) plus TERM=xterm-256color, with the request's `env` over it.
 * At most {@link MAX_PTY_SESSIONS} run at once.
 */
export class PtyManager {
  readonly #sessions = new Map<string, PtySession>();
  readonly #user: ResolvedUser;
  readonly #users: UserDatabase;
  readonly #idleMs: number;
  readonly #replayBytes: number;
  readonly #sweeper: NodeJS.Timeout | undefined;
  readonly #switchUser: boolean;
  readonly #cgroups: ProcessCgroups | undefined;
  readonly #defaultEnv: Readonly<Record<string, string>>;
  readonly #defaultWorkingDir: string | undefined;
  readonly #setpriv: readonly string[];
  #closing = false;

  constructor(defaultUser: ResolvedUser, options: PtyManagerOptions = {}) {
    this.#user = defaultUser;
    this.#cgroups = options.processCgroups;
    this.#defaultEnv = options.defaultEnv ?? {};
    this.#defaultWorkingDir = options.defaultWorkingDir;
    this.#setpriv = options.setprivCommand?.length ? options.setprivCommand : ["setpriv"];
    this.#users = new UserDatabase(options.passwdFile);
    this.#idleMs = options.ptyIdleTimeoutMs ?? DEFAULT_IDLE_MS;
    this.#replayBytes = options.ptyReplayBytes ?? PTY_PRE_READY_BUFFER_BYTES;
    if (!Number.isSafeInteger(this.#idleMs) || this.#idleMs < 0)
      throw new RangeError("ptyIdleTimeoutMs must be a non-negative integer");
    if (!Number.isSafeInteger(this.#replayBytes) || this.#replayBytes <= 0)
      throw new RangeError("ptyReplayBytes must be a positive integer");
    this.#switchUser = defaultUser.uid !== process.getuid?.() || defaultUser.gid !== process.getgid?.();
    if (this.#idleMs > 0) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.min(30_000, Math.max(50, this.#idleMs / 4)));
      this.#sweeper.unref();
    }
  }

  get runningCount(): number {
    let count = 0;
    for (const session of this.#sessions.values()) if (session.status === "running") count++;
    return count;
  }

  list(): PtySession[] {
    return [...this.#sessions.values()].sort((a, b) => a.createdAt - b.createdAt);
  }

  /** The session with this id; 404 SESSION_NOT_FOUND otherwise. */
  get(id: string): PtySession {
    const session = this.#sessions.get(id);
    if (!session) throw new ServiceError("SESSION_NOT_FOUND", `no PTY session ${id}`);
    return session;
  }

  find(id: string): PtySession | undefined {
    return this.#sessions.get(id);
  }

  create(request: CreatePtySessionRequest): PtySession {
    if (this.#closing) throw new ServiceError("SPAWN_FAILED", "the daemon is shutting down");
    if (this.runningCount >= MAX_PTY_SESSIONS) {
      throw new ServiceError(
        "TOO_MANY_SESSIONS",
        `the sandbox already has ${MAX_PTY_SESSIONS} PTY sessions; delete one first`,
      );
    }
    const user = this.#user;
    const size = clampPtySize(request);
    const cwd =
      request.working_dir === undefined && this.#defaultWorkingDir && isDirectory(this.#defaultWorkingDir)
        ? this.#defaultWorkingDir
        : workingDir(request.working_dir, user);
    const env: Record<string, string> = {
      PATH: BASE_PATH,
      HOME: user.home,
      USER: user.name,
      LOGNAME: user.name,
      SHELL: this.#users.byUid(user.uid)?.shell || "/bin/sh",
      LANG: "C.UTF-8",
      TERM: DEFAULT_TERM,
      ...this.#defaultEnv,
      ...request.env,
    };
    const args = request.args ?? [];
    const executable = findExecutable(request.command, env.PATH, cwd);
    // node-pty's own uid/gid switch keeps the daemon's supplementary groups: setpriv clears them.
    const [file, argv] = this.#switchUser
      ? [
          this.#setpriv[0],
          [
            ...this.#setpriv.slice(1),
            ...[`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups", "--", executable, ...args],
          ],
        ]
      : [executable, args];
    const id = `pty_${randomBytes(12).toString("base64url")}`;
    // Cgroup names are lower case: the id's hex digest names the session's group.
    const cgroupName = this.#cgroups
      ? `t${createHash("sha256").update(id).digest("hex").slice(0, 20)}`
      : undefined;
    const run = () =>
      spawnPty(file, argv, {
        name: env.TERM,
        cols: size.cols,
        rows: size.rows,
        cwd,
        env,
        encoding: null,
      });
    let pty: NodePty.IPty;
    try {
      pty = this.#cgroups && cgroupName ? this.#cgroups.spawnInto(cgroupName, run) : run();
    } catch (error) {
      if (cgroupName) this.#cgroups?.remove(cgroupName);
      throw new ServiceError(
        "SPAWN_FAILED",
        `cannot start "${request.command}": ${(error as Error).message}`,
      );
    }
    const cgroups = this.#cgroups;
    // The OOM killer's first choice, before the daemon (its children inherit it).
    if (cgroupName) cgroups?.raiseOomScore(pty.pid);
    const session = new PtySession({
      id,
      pty,
      command: request.command,
      args,
      rows: size.rows,
      cols: size.cols,
      replayBytes: this.#replayBytes,
      onExit: () => {
        if (cgroupName) cgroups?.remove(cgroupName);
        this.#forgetOldEnded();
      },
      ...(cgroups && cgroupName
        ? {
            killTree: () => {
              cgroups.kill(cgroupName);
              cgroups.remove(cgroupName);
            },
          }
        : {}),
    });
    this.#sessions.set(session.id, session);
    return session;
  }

  /** Deletes a session: its WebSockets close with 1001 and its process group is hung up, then killed. */
  async delete(id: string): Promise<void> {
    const session = this.get(id);
    this.#sessions.delete(id);
    await session.delete();
  }

  /** Ends every session. Idempotent. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#sweeper);
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((session) => session.delete(200)));
  }

  #sweep(): void {
    const now = Date.now();
    for (const session of this.#sessions.values()) {
      if (session.clientCount > 0 || now - session.lastActivity < this.#idleMs) continue;
      this.#sessions.delete(session.id);
      void session.delete();
    }
  }

  #forgetOldEnded(): void {
    const ended = this.list().filter((session) => session.status === "exited");
    for (const session of ended.slice(0, Math.max(0, ended.length - MAX_ENDED_SESSIONS))) {
      this.#sessions.delete(session.id);
      void session.delete();
    }
  }
}

function workingDir(requested: string | undefined, user: ResolvedUser): string {
  if (requested === undefined) return isDirectory(user.home) ? user.home : "/";
  const path = resolve(user.home, requested);
  if (!isDirectory(path)) {
    throw new ServiceError("INVALID_WORKING_DIR", `working_dir "${requested}" is not an existing directory`);
  }
  return path;
}

/**
 * The command as a path, looked up in PATH when it has no slash. node-pty reports a failed exec only as output on
 * the terminal, so a missing command is caught here as 400 SPAWN_FAILED.
 */
function findExecutable(command: string, path: string | undefined, cwd: string): string {
  const candidates = command.includes("/")
    ? [resolve(cwd, command)]
    : (path ?? BASE_PATH)
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  throw new ServiceError("SPAWN_FAILED", `cannot start "${command}": command not found or not executable`);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
