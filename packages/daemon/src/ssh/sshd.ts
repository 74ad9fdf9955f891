import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chown, copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ServiceError } from "@svc/contract/errors";
import { SANDBOX_SSHD_PORT, type SshStatus } from "@svc/contract/runtime";
import type { ProcessCgroups } from "../processes/process-cgroups.ts";
import { type ResolvedUser, resolveUser, UserDatabase } from "../processes/users.ts";
import { ensureHostKey } from "./host-key.ts";

export interface SshdOptions {
  /** The sandbox's persistent host key (root-only). Default `/etc/ssh/ssh_host_ed25519_key`, the image's choice. */
  sshHostKeyPath?: string;
  /** Where each start's config, authorized_keys and host key copy are written (recreated). Default `/run/svc-sshd`. */
  sshRunDir?: string;
  /** Port sshd listens on. Default {@link SANDBOX_SSHD_PORT}. */
  sshdPort?: number;
  /** Address sshd listens on. Default 127.0.0.1: the SSH gateway reaches it through a TCP tunnel. */
  sshdListenHost?: string;
  /** The sshd binary. Default `/usr/sbin/sshd` (Debian's openssh-server). */
  sshdPath?: string;
  /** The passwd file users are resolved from. Default `/etc/passwd`. */
  passwdFile?: string;
  /** sshd and its sessions run in their own cgroup `sshd` (process-cgroups.ts), on the user's side. */
  processCgroups?: ProcessCgroups;
}

interface Running {
  child: ChildProcess;
  pid: number;
  pubkey: string;
  uid: number;
  exited: Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 3_000;
const BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The sshd config of one start: only public-key logins of the one user sshd runs for, with the key of the
 * service's SSH gateway. sshd runs as that user when it is not root: an unprivileged sshd does no privilege
 * separation chroot (which the sandbox's seccomp filter forbids) and can only log that user in.
 */
export function sshdConfig(input: {
  listenHost: string;
  port: number;
  hostKey: string;
  authorizedKeys: string;
  user: string;
}): string {
  const listen = input.listenHost.includes(":") ? `[${input.listenHost}]` : input.listenHost;
  return [
    `ListenAddress ${listen}:${input.port}`,
    `HostKey ${input.hostKey}`,
    "PidFile none",
    `AuthorizedKeysFile ${input.authorizedKeys}`,
    "PubkeyAuthentication yes",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "HostbasedAuthentication no",
    "UsePAM no",
    "PermitRootLogin prohibit-password",
    `AllowUsers ${input.user}`,
    // The authorized_keys file is ours and root-owned; a world-writable parent (a test's /tmp) is no concern.
    "StrictModes no",
    "AllowTcpForwarding yes",
    "AllowStreamLocalForwarding no",
    "GatewayPorts no",
    "PermitTunnel no",
    "X11Forwarding no",
    "PrintMotd no",
    "PrintLastLog no",
    "UseDNS no",
    "AcceptEnv LANG LC_* TERM COLORTERM",
    "Subsystem sftp internal-sftp",
    "LogLevel INFO",
    "",
  ].join("\n");
}

/** Direct children of a process (the per-connection sshd processes of a listener). */
async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[1]) === pid) children.push(Number(name));
  }
  return children;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** The in-sandbox SSH daemon: enable (start or restart for a new key or user), disable, status. */
export class SshdManager {
  readonly #hostKeyPath: string;
  readonly #runDir: string;
  readonly #port: number;
  readonly #listenHost: string;
  readonly #sshdPath: string;
  readonly #users: UserDatabase;
  readonly #defaultUser: () => ResolvedUser;
  readonly #log: (message: string) => void;
  #running: Running | null = null;
  /** Enable, disable and close run one at a time. */
  #queue: Promise<unknown> = Promise.resolve();

  readonly #cgroups: ProcessCgroups | undefined;

  constructor(options: SshdOptions, defaultUser: () => ResolvedUser, log: (message: string) => void) {
    this.#hostKeyPath = options.sshHostKeyPath ?? "/etc/ssh/ssh_host_ed25519_key";
    this.#runDir = options.sshRunDir ?? "/run/svc-sshd";
    this.#port = options.sshdPort ?? SANDBOX_SSHD_PORT;
    this.#listenHost = options.sshdListenHost ?? "127.0.0.1";
    this.#sshdPath = options.sshdPath ?? "/usr/sbin/sshd";
    this.#users = new UserDatabase(options.passwdFile);
    this.#defaultUser = defaultUser;
    this.#log = log;
    this.#cgroups = options.processCgroups;
  }

  get port(): number {
    return this.#port;
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => {});
    return next;
  }

  async status(): Promise<SshStatus> {
    const fingerprint = await ensureHostKey(this.#hostKeyPath);
    const running = this.#running;
    return { enabled: running !== null, pid: running?.pid ?? null, host_key_fingerprint: fingerprint };
  }

  /** Starts sshd for this key and user; an sshd already running for exactly them is kept. */
  enable(pubkey: string, backendUser: string | undefined): Promise<SshStatus> {
    return this.#serial(async () => {
      const user = backendUser === undefined ? this.#defaultUser() : resolveUser(backendUser, this.#users);
      const own = process.getuid?.() ?? 0;
      if (user.uid !== own && own !== 0) {
        throw new ServiceError(
          "INVALID_USER",
          `the daemon runs as uid ${own} (not root) and can only run sshd as that user`,
        );
      }
      const key = pubkey.trim();
      const current = this.#running;
      if (current && current.pubkey === key && current.uid === user.uid) return this.status();
      await this.#stop();
      await this.#start(key, user);
      return this.status();
    });
  }

  disable(): Promise<SshStatus> {
    return this.#serial(async () => {
      await this.#stop();
      return this.status();
    });
  }

  /** Stops sshd and its connections (the daemon is closing). */
  close(): Promise<void> {
    return this.#serial(() => this.#stop());
  }

  async #start(pubkey: string, user: ResolvedUser): Promise<void> {
    if (!existsSync(this.#sshdPath)) {
      throw new ServiceError("SSH_FAILED", `${this.#sshdPath} is missing (install openssh-server)`);
    }
    await ensureHostKey(this.#hostKeyPath);
    const own = process.getuid?.() ?? 0;
    await rm(this.#runDir, { recursive: true, force: true });
    await mkdir(this.#runDir, { recursive: true, mode: 0o755 });
    let hostKey = this.#hostKeyPath;
    if (user.uid !== own) {
      // An unprivileged sshd reads its host key itself: a copy owned by that user, in a directory only it reads.
      const keyDir = join(this.#runDir, "host-key");
      await mkdir(keyDir, { mode: 0o700 });
      hostKey = join(keyDir, "ssh_host_ed25519_key");
      await copyFile(this.#hostKeyPath, hostKey);
      await chown(hostKey, user.uid, user.gid);
      await chown(keyDir, user.uid, user.gid);
    } else if (own === 0) {
      // A root sshd chroots its pre-auth child into /run/sshd.
      await mkdir("/run/sshd", { recursive: true, mode: 0o755 });
    }
    const authorizedKeys = join(this.#runDir, "authorized_keys");
    await writeFile(authorizedKeys, `${pubkey}\n`, { mode: 0o644 });
    const configPath = join(this.#runDir, "sshd_config");
    await writeFile(
      configPath,
      sshdConfig({
        listenHost: this.#listenHost,
        port: this.#port,
        hostKey,
        authorizedKeys,
        user: user.name,
      }),
      { mode: 0o644 },
    );
    const run = () =>
      spawn(this.#sshdPath, ["-D", "-e", "-f", configPath], {
        cwd: existsSync(user.home) ? user.home : "/",
        env: { PATH: BASE_PATH, HOME: user.home, USER: user.name, LOGNAME: user.name, LANG: "C.UTF-8" },
        stdio: ["ignore", "ignore", "pipe"],
        detached: true,
        ...(user.uid !== own ? { uid: user.uid, gid: user.gid } : {}),
      });
    const child = this.#cgroups ? this.#cgroups.spawnInto("sshd", run) : run();
    let log = "";
    let ready = false;
    const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("sshd did not start listening in time")),
        READY_TIMEOUT_MS,
      );
      child.stderr?.setEncoding("utf8");
      child.stderr?.on("data", (text: string) => {
        if (!ready) {
          log = (log + text).slice(-4096);
          if (log.includes("Server listening on")) {
            ready = true;
            clearTimeout(timer);
            resolve();
          }
        } else {
          for (const line of text.split("\n")) if (line.trim()) this.#log(`sshd: ${line.trim()}`);
        }
      });
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", (code, sig) => {
        clearTimeout(timer);
        reject(new Error(`sshd exited (${sig ?? `status ${code}`})`));
      });
    });
    try {
      await started;
    } catch (error) {
      if (child.pid) signal(-child.pid, "SIGKILL");
      const detail = log.trim().split("\n").slice(-5).join("; ");
      throw new ServiceError("SSH_FAILED", `${(error as Error).message}${detail ? `: ${detail}` : ""}`);
    }
    const running: Running = { child, pid: child.pid as number, pubkey, uid: user.uid, exited };
    this.#running = running;
    child.once("exit", (code, sig) => {
      if (this.#running === running) {
        this.#log(`sshd (pid ${running.pid}) exited (${sig ?? `status ${code}`})`);
        this.#running = null;
      }
    });
  }

  async #stop(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    this.#running = null;
    // Per-connection sshd processes start their own sessions: end them too, then the listener.
    for (const pid of await childrenOf(running.pid)) signal(pid, "SIGTERM");
    signal(-running.pid, "SIGTERM");
    const timer = setTimeout(() => {
      signal(-running.pid, "SIGKILL");
    }, STOP_TIMEOUT_MS);
    await running.exited;
    clearTimeout(timer);
  }
}
