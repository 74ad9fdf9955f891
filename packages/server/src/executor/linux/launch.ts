/**
 * # launch
 *
 * Starts a sandbox's first process (the runtime daemon) per the recipe, section 2:
 * ```
 * bash -c 'echo $$ >"$1"; …; shift N; <close fds > 4>; exec "$@"' svc-launch <cgroup.procs…> \
 *   nsenter --net=/run/netns/<name> bwrap --bind <root> / … --seccomp 3 \
 *   -- setpriv --securebits=… --bounding-set=… --inh-caps=… --ambient-caps=… --no-new-privs -- <command>
 * ```
 * The shell puts itself into the sandbox's cgroups before anything else runs, so every process of the sandbox
 * (bwrap included) is accounted and killable as a group, and closes any fd the server inherited without
 * close-on-exec (bash: dash cannot name fds above 9); nsenter enters the prepared network namespace; bwrap builds
 * the mount, pid, ipc, uts and cgroup namespaces and applies the seccomp filter (seccomp.ts, fd 3).
 *
 * ## Who runs as what
 * - bwrap runs as real root without a user namespace (it needs to mount), and holds every capability until it
 *   execs setpriv.
 * - The daemon runs as uid 0 inside the sandbox (it must start processes as svc-user, root or any uid:gid, and
 *   act on files as the requesting user), but with only `DAEMON_CAPABILITIES` in its bounding, permitted,
 *   effective, inheritable and ambient sets, `no_new_privs`, and the securebits `noroot` + `noroot_locked` (uid 0
 *   gains no capability by exec) and `no_setuid_fixup_locked` (a change away from uid 0 always clears them):
 *   - CAP_SETUID, CAP_SETGID: start processes as any uid:gid.
 *   - CAP_KILL: signal process groups it started under other uids.
 *   - CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_CHOWN: the file API acts for the default user itself (the daemon checks
 *     that user's permissions, then writes into e.g. /home/svc-user, sets modes and gives new files to the
 *     user); DAC_OVERRIDE also lets it read the auth secret, which is mode 0000 so that no other uid-0 process in
 *     the sandbox can.
 *   Nothing else: no CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_SYS_PTRACE, CAP_SETPCAP, CAP_SYS_CHROOT, CAP_MKNOD.
 * - User processes get no capabilities. Started with a uid other than 0, the kernel clears them at setuid.
 *   Started as uid 0, they would inherit the daemon's ambient set: the daemon must start them through
 *   `setpriv --inh-caps=-all --` (clearing the inheritable set clears the ambient one; with `noroot` the exec then
 *   grants nothing). Either way the bounding set and no_new_privs stay, so nothing regains a capability.
 *
 * ## What the sandbox sees
 * `/` is the overlay root (disk.ts); `/opt/svc` a read-only tmpfs holding read-only binds of the Node binary's
 * directory (`/opt/svc/node`) and the daemon's code (`/opt/svc/app`: `package.json`, `node_modules` and the
 * workspace packages the daemon imports, laid out as in the repo so `@svc/*` links resolve); `/run/svc` a 0700
 * tmpfs with the auth secret as a read-only 0000 file; the sandbox's memory cgroup read-only at
 * `/run/svc/memory-cgroup` when given; a fresh `/proc` (own pid namespace; `/proc/sys` read-only; kcore, keys,
 * timer_list, sysrq-trigger and the like masked), a minimal `/dev`, `/tmp` on the sandbox's disk, a 64 MiB tmpfs
 * `/dev/shm` (1777), no `/sys`.
 *
 * The process is spawned by the server's tool runner (host-command.ts), detached (own session and process
 * group), unref'd, with stdin /dev/null and stdout/stderr appended to `<sandboxDir>/daemon.log`, and not tied to
 * the server's or the runner's life (no --die-with-parent), so a server crash leaves the sandbox running to be
 * adopted. The secret reaches bwrap through a pipe (fd 4), never argv or an environment variable (it crosses the
 * pipe between the server and its runner, both root).
 *
 * Start-up: Node loading the daemon's modules is most of a launch. The executor launches a bundle of the daemon
 * (daemon-bundle.ts; `daemonBundle`, bound at /opt/svc/app/daemon.mjs) rather than its TypeScript sources, and
 * `warmCompileCache` fills a Node compile cache once per bundle (the executor keeps it beside the bundle);
 * `compileCacheDir` binds it read-only into every sandbox.
 */
import { existsSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_PROCESS_USER, RUNTIME_PORT } from "@svc/contract";
import { launchThroughRunner, runHostCommand } from "./host-command.ts";
import type { NodeRuntimeLibs } from "./node-runtime.ts";
import { writeSeccompFile } from "./seccomp.ts";

/** Capabilities the daemon keeps (see the module comment for why each). */
export const DAEMON_CAPABILITIES = ["setuid", "setgid", "kill", "chown", "dac_override", "fowner"] as const;

/** Paths inside the sandbox. */
export const SANDBOX_PATHS = {
  nodeDir: "/opt/svc/node",
  /** The host's libraries of Node and its loader (node-runtime.ts), for images without a usable glibc. */
  nodeLibs: "/opt/svc/lib",
  /** The host's setpriv, run through the host's loader (with nodeLibs). */
  setpriv: "/opt/svc/lib/setpriv",
  appDir: "/opt/svc/app",
  runDir: "/run/svc",
  authSecret: "/run/svc/auth-secret",
  memoryCgroup: "/run/svc/memory-cgroup",
  /** The daemon's and the workload's cgroup directories, `<group>/<hierarchy>` (cgroup.ts, process-cgroups.ts). */
  processCgroups: "/run/svc/cgroup",
  daemonMain: "/opt/svc/app/packages/daemon/src/main.ts",
  /** The daemon bundled into one file (daemon-bundle.ts), when launched that way. */
  daemonBundle: "/opt/svc/app/daemon.mjs",
  compileCache: "/opt/svc/compile-cache",
} as const;

export const DEFAULT_SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** /proc files hidden behind a read-only /dev/null (those this kernel has). */
const MASKED_PROC_FILES = [
  "kcore",
  "keys",
  "key-users",
  "timer_list",
  "timer_stats",
  "sched_debug",
  "latency_stats",
  "sysrq-trigger",
  "kallsyms",
  "kmsg",
  "config.gz",
];
/** Size of the sandbox's /dev/shm (a tmpfs, charged to its memory cgroup). */
const SHM_BYTES = 64 * 1024 * 1024;

/** /proc directories hidden behind an empty read-only tmpfs. */
const MASKED_PROC_DIRS = ["acpi", "scsi", "asound", "driver"];

export interface BindMount {
  /** Host path. */
  source: string;
  /** Path inside the sandbox. */
  dest: string;
  readOnly?: boolean;
}

export interface SandboxLaunch {
  /** The sandbox's host directory: the log file and the seccomp program are written there. */
  sandboxDir: string;
  /** The sandbox's root (the overlay mount from disk.ts). */
  rootDir: string;
  hostname: string;
  /** Network namespace: a name under /run/netns, or an absolute path. */
  netns: string;
  /** `cgroup.procs` files the sandbox joins before it starts (cgroup.ts gives them). */
  cgroupProcs: readonly string[];
  /** argv inside the sandbox, run as uid 0 with DAEMON_CAPABILITIES; see `daemonCommand`. */
  command: readonly string[];
  /** Environment of the command (the host's never leaks in); PATH, HOME and LANG have defaults. */
  env?: Readonly<Record<string, string>>;
  /** Made readable at SANDBOX_PATHS.authSecret for the daemon only. */
  authSecret?: string;
  /** The sandbox's memory cgroup directory, bound read-only at SANDBOX_PATHS.memoryCgroup. */
  memoryCgroupDir?: string;
  /** Node binary whose directory is bound at /opt/svc/node; default: the one running this server. */
  nodeBinary?: string;
  /** Repository whose daemon code is bound at /opt/svc/app; default: this checkout. */
  appRoot?: string;
  /** Workspace packages bound under /opt/svc/app/packages; default: the daemon and what it imports. */
  appPackages?: readonly string[];
  /**
   * A Node compile cache made by `warmCompileCache`, bound read-only (NODE_COMPILE_CACHE): the daemon's modules
   * start about 3× faster. Read-only, so no sandbox can plant code in another's start-up.
   */
  compileCacheDir?: string;
  /** A daemon bundle (daemon-bundle.ts) on the host, bound read-only at SANDBOX_PATHS.daemonBundle. */
  daemonBundle?: string;
  /** The host's libraries of Node, bound read-only at SANDBOX_PATHS.nodeLibs (start Node with DaemonCommandOptions.nodeLibs). */
  nodeLibs?: NodeRuntimeLibs;
  extraBinds?: readonly BindMount[];
  /** Capabilities kept by the command; default DAEMON_CAPABILITIES. */
  capabilities?: readonly string[];
  /** Where stdout and stderr go; default `<sandboxDir>/daemon.log`. */
  logFile?: string;
  /**
   * oom_score_adj of the sandbox's first process, set by the launcher where the host allows (lowering it needs
   * CAP_SYS_RESOURCE); the daemon raises each child's to 1000.
   */
  oomScoreAdj?: number;
  /** Files bound read-only over the sandbox's /proc after it is mounted (lxcfs.ts: its own limits' view). */
  procBinds?: readonly BindMount[];
  /** CPUs the sandbox is pinned to (a `taskset -c` list, lxcfs.ts), so `nproc` shows its own; unset: all. */
  cpuList?: string;
}

export interface LaunchedSandbox {
  /** Pid of the outer process (bwrap, after sh and nsenter exec'd into it), in this host's pid namespace. */
  pid: number;
  logFile: string;
  /** Resolves when the outer process exits, if it does while this server lives (it is unref'd). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export const DEFAULT_APP_ROOT = fileURLToPath(new URL("../../../../../", import.meta.url)).replace(/\/$/, "");
export const DAEMON_PACKAGES = ["daemon", "contract"] as const;

export interface DaemonCommandOptions {
  sandboxId: string;
  port?: number;
  host?: string;
  defaultUser?: string;
  /** Whether the memory cgroup is bound (pass `--memory-cgroup`). */
  memoryCgroup?: boolean;
  nodeBinary?: string;
  /** Run the bundle (SandboxLaunch.daemonBundle) instead of the sources' main.ts. */
  bundle?: boolean;
  /** Start Node through the host's loader bound with SandboxLaunch.nodeLibs (images without a usable glibc). */
  nodeLibs?: NodeRuntimeLibs;
  extraArgs?: readonly string[];
}

/** How the sandbox runs setpriv: the image's, or the host's through the host's loader (with nodeLibs). */
export function setprivArgv(nodeLibs: NodeRuntimeLibs | undefined): string[] {
  if (!nodeLibs?.setpriv) return ["setpriv"];
  return [
    join(SANDBOX_PATHS.nodeLibs, nodeLibs.loader),
    "--library-path",
    SANDBOX_PATHS.nodeLibs,
    SANDBOX_PATHS.setpriv,
  ];
}

/** The argv prefix that runs Node: the binary itself, or the host's loader with the host's libraries. */
function nodeArgv(nodeBinary: string | undefined, nodeLibs: NodeRuntimeLibs | undefined): string[] {
  const node = join(SANDBOX_PATHS.nodeDir, basename(nodeBinary ?? process.execPath));
  if (!nodeLibs) return [node];
  return [join(SANDBOX_PATHS.nodeLibs, nodeLibs.loader), "--library-path", SANDBOX_PATHS.nodeLibs, node];
}

/** The daemon's argv inside the sandbox (paths as launch binds them). */
export function daemonCommand(options: DaemonCommandOptions): string[] {
  return [
    ...nodeArgv(options.nodeBinary, options.nodeLibs),
    options.bundle ? SANDBOX_PATHS.daemonBundle : SANDBOX_PATHS.daemonMain,
    ...["--port", String(options.port ?? RUNTIME_PORT), "--host", options.host ?? "0.0.0.0"],
    ...["--auth-secret-file", SANDBOX_PATHS.authSecret, "--sandbox-id", options.sandboxId],
    ...["--default-user", options.defaultUser ?? DEFAULT_PROCESS_USER],
    ...(options.memoryCgroup ? ["--memory-cgroup", SANDBOX_PATHS.memoryCgroup] : []),
    ...(options.extraArgs ?? []),
  ];
}

function netnsPath(netns: string): string {
  if (isAbsolute(netns)) return netns;
  if (!/^[A-Za-z0-9._-]+$/.test(netns)) throw new Error(`bad network namespace name: ${netns}`);
  return join("/run/netns", netns);
}

/**
 * bwrap arguments for /opt/svc: a read-only tmpfs with the Node binary's directory, the daemon's code and,
 * when `cacheBind` is given, the compile cache (bound with that option).
 */
function optSvcArgs(
  spec: Pick<
    SandboxLaunch,
    "nodeBinary" | "appRoot" | "appPackages" | "compileCacheDir" | "daemonBundle" | "nodeLibs"
  >,
  cacheBind?: "--bind" | "--ro-bind",
): string[] {
  const nodeBinary = resolve(spec.nodeBinary ?? process.execPath);
  const appRoot = resolve(spec.appRoot ?? DEFAULT_APP_ROOT);
  const args = ["--tmpfs", "/opt/svc", "--ro-bind", dirname(nodeBinary), SANDBOX_PATHS.nodeDir];
  const appFiles = [
    "package.json",
    "node_modules",
    ...(spec.appPackages ?? DAEMON_PACKAGES).map((p) => `packages/${p}`),
  ];
  for (const file of appFiles) args.push("--ro-bind", join(appRoot, file), join(SANDBOX_PATHS.appDir, file));
  if (spec.daemonBundle) args.push("--ro-bind", resolve(spec.daemonBundle), SANDBOX_PATHS.daemonBundle);
  for (const lib of spec.nodeLibs?.files ?? []) {
    if (!/^[A-Za-z0-9._+-]+$/.test(lib.name)) throw new Error(`bad library name: ${lib.name}`);
    args.push("--ro-bind", lib.source, join(SANDBOX_PATHS.nodeLibs, lib.name));
  }
  if (spec.nodeLibs?.setpriv) args.push("--ro-bind", spec.nodeLibs.setpriv, SANDBOX_PATHS.setpriv);
  if (cacheBind && spec.compileCacheDir) {
    args.push(cacheBind, resolve(spec.compileCacheDir), SANDBOX_PATHS.compileCache);
  }
  args.push("--remount-ro", "/opt/svc");
  return args;
}

export interface CompileCacheOptions {
  /** Host directory for the cache (created if missing); pass the same to SandboxLaunch.compileCacheDir. */
  cacheDir: string;
  /** A rootfs to run in (the default image's). */
  imageRootfs: string;
  nodeBinary?: string;
  appRoot?: string;
  appPackages?: readonly string[];
  /** Warm the cache for this daemon bundle (run it with --warm-up) instead of the sources' main.ts. */
  daemonBundle?: string;
  /** Run Node with the host's libraries (an image without a usable glibc). */
  nodeLibs?: NodeRuntimeLibs;
}

/**
 * Fills a Node compile cache with the daemon's modules by running `svc-daemon --warm-up` (which loads every
 * module a start loads: the app built, every route registered, ready, but not listening) in a throwaway
 * bwrap with the sandbox's /opt/svc layout and the cache writable; no user code runs there. Run it once per
 * bundle (for the sources, entries of changed files are simply missed until the next warm-up). Resolves with its
 * ms.
 */
export async function warmCompileCache(options: CompileCacheOptions): Promise<number> {
  const started = performance.now();
  await mkdir(options.cacheDir, { recursive: true, mode: 0o755 });
  await runHostCommand("bwrap", [
    ...["--ro-bind", resolve(options.imageRootfs), "/"],
    ...optSvcArgs({ ...options, compileCacheDir: options.cacheDir }, "--bind"),
    ...["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"],
    ...[
      "--unshare-pid",
      "--unshare-net",
      "--unshare-ipc",
      "--unshare-uts",
      "--die-with-parent",
      "--new-session",
    ],
    "--clearenv",
    ...[
      "--setenv",
      "PATH",
      DEFAULT_SANDBOX_PATH,
      "--setenv",
      "NODE_COMPILE_CACHE",
      SANDBOX_PATHS.compileCache,
    ],
    ...[
      "--",
      ...nodeArgv(options.nodeBinary, options.nodeLibs),
      options.daemonBundle ? SANDBOX_PATHS.daemonBundle : SANDBOX_PATHS.daemonMain,
      "--warm-up",
    ],
  ]);
  return performance.now() - started;
}

/** The bwrap and setpriv arguments (everything after `bwrap`), fds 3 (seccomp) and 4 (secret) assumed. */
export function bwrapArgs(spec: SandboxLaunch): string[] {
  if (!/^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(spec.hostname)) {
    throw new Error(`bad hostname: ${spec.hostname}`);
  }
  const caps = (spec.capabilities ?? DAEMON_CAPABILITIES).map(
    (c) => `+${c.replace(/^cap_/i, "").toLowerCase()}`,
  );
  const capList = ["-all", ...caps].join(",");
  const env: Record<string, string> = {
    PATH: DEFAULT_SANDBOX_PATH,
    HOME: "/root",
    LANG: "C.UTF-8",
    ...(spec.compileCacheDir ? { NODE_COMPILE_CACHE: SANDBOX_PATHS.compileCache } : {}),
    ...spec.env,
  };

  const args: string[] = ["--bind", resolve(spec.rootDir), "/"];
  args.push(...optSvcArgs(spec, spec.compileCacheDir ? "--ro-bind" : undefined));
  // /run/svc: the daemon's private runtime dir; the secret is 0000, readable only with CAP_DAC_OVERRIDE.
  args.push("--perms", "0700", "--tmpfs", SANDBOX_PATHS.runDir);
  if (spec.authSecret !== undefined)
    args.push("--perms", "0000", "--ro-bind-data", "4", SANDBOX_PATHS.authSecret);
  if (spec.memoryCgroupDir) args.push("--ro-bind", resolve(spec.memoryCgroupDir), SANDBOX_PATHS.memoryCgroup);
  for (const bind of spec.extraBinds ?? []) {
    args.push(bind.readOnly === false ? "--bind" : "--ro-bind", resolve(bind.source), bind.dest);
  }
  // /proc of the new pid namespace, with the host-wide knobs read-only or hidden. /proc/sys is bound from the
  // host's procfs: its files show the reader's own namespaces (hostname, net), so that is the sandbox's view.
  args.push("--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys");
  for (const file of MASKED_PROC_FILES) {
    if (existsSync(`/proc/${file}`)) args.push("--ro-bind", "/dev/null", `/proc/${file}`);
  }
  for (const dir of MASKED_PROC_DIRS) {
    if (existsSync(`/proc/${dir}`))
      args.push("--perms", "0555", "--tmpfs", `/proc/${dir}`, "--remount-ro", `/proc/${dir}`);
  }
  for (const bind of spec.procBinds ?? []) args.push("--ro-bind", resolve(bind.source), bind.dest);
  // /tmp is the root's own /tmp, on the sandbox's sized disk: a tmpfs would be charged to the sandbox's memory
  // (and sized from the host's), so filling it would OOM-kill everything inside. /dev/shm stays a small tmpfs.
  args.push("--dev", "/dev", "--perms", "1777", "--size", String(SHM_BYTES), "--tmpfs", "/dev/shm");
  args.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup",
    "--hostname",
    spec.hostname,
  );
  args.push("--new-session", "--chdir", "/", "--clearenv");
  for (const [name, value] of Object.entries(env)) args.push("--setenv", name, value);
  args.push("--seccomp", "3", "--");
  const libs = spec.nodeLibs;
  args.push(
    ...(libs?.setpriv
      ? [
          join(SANDBOX_PATHS.nodeLibs, libs.loader),
          "--library-path",
          SANDBOX_PATHS.nodeLibs,
          SANDBOX_PATHS.setpriv,
        ]
      : ["setpriv"]),
    "--securebits=+noroot,+noroot_locked,+no_setuid_fixup_locked",
    `--bounding-set=${capList}`,
    `--inh-caps=${capList}`,
    `--ambient-caps=${capList}`,
    "--no-new-privs",
    "--",
    ...spec.command,
  );
  return args;
}

function checkCpuList(list: string): string {
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(list)) throw new Error(`bad cpu list: ${list}`);
  return list;
}

/**
 * The whole command line: `bash -c <script> svc-launch <cgroup.procs…> nsenter … bwrap …`. The script joins the
 * cgroups, closes every fd above 4 that the server may have inherited without close-on-exec (bash, unlike dash,
 * redirects multi-digit fds), and execs nsenter.
 */
export function launchCommand(spec: SandboxLaunch): { file: string; args: string[] } {
  const script = [
    ...spec.cgroupProcs.map((_, i) => `echo $$ >"$${i + 1}" || exit 125`),
    ...(spec.cgroupProcs.length ? [`shift ${spec.cgroupProcs.length}`] : []),
    ...(spec.cpuList !== undefined
      ? [`taskset -pc ${checkCpuList(spec.cpuList)} $$ >/dev/null || exit 125`]
      : []),
    ...(spec.oomScoreAdj !== undefined
      ? // Best effort: lowering needs CAP_SYS_RESOURCE, which some hosts' root lacks (children still get 1000).
        [`echo ${Math.trunc(spec.oomScoreAdj)} 2>/dev/null >/proc/self/oom_score_adj || true`]
      : []),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
    'for fd in /proc/self/fd/*; do fd=${fd##*/}; if [ "$fd" -gt 4 ]; then eval "exec $fd>&-"; fi; done',
    'exec "$@"',
  ].join("\n");
  return {
    file: "/bin/bash",
    args: [
      "-c",
      script,
      "svc-launch",
      ...spec.cgroupProcs,
      "nsenter",
      `--net=${netnsPath(spec.netns)}`,
      "--",
      "bwrap",
      ...bwrapArgs(spec),
    ],
  };
}

/**
 * Starts the sandbox's first process and returns at once with the outer pid; the caller waits for the daemon to
 * answer. Errors of bwrap and the command land in the log file.
 */
export async function launchSandboxProcess(spec: SandboxLaunch): Promise<LaunchedSandbox> {
  if (!statSync(spec.rootDir).isDirectory())
    throw new Error(`sandbox root is not a directory: ${spec.rootDir}`);
  const seccompPath = join(spec.sandboxDir, "seccomp.bpf");
  await writeSeccompFile(seccompPath);
  const logFile = spec.logFile ?? join(spec.sandboxDir, "daemon.log");
  const { file, args } = launchCommand(spec);
  // Spawned by the tool runner (host-command.ts): a fork of this server's whole process is not paid here.
  const { pid, exited } = await launchThroughRunner({
    file,
    args,
    env: { PATH: process.env.PATH ?? DEFAULT_SANDBOX_PATH, LC_ALL: "C" },
    logFile,
    seccompFile: seccompPath,
    secret: spec.authSecret,
  });
  return { pid, logFile, exited };
}
