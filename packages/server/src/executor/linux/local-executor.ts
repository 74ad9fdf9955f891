import { execFileSync } from "node:child_process";
import { lookup as dnsLookup } from "node:dns/promises";
import { existsSync, readFileSync, watch } from "node:fs";
import { chmod, mkdir, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import {
  RUNTIME_PORT,
  runtimeRoutes,
  type SandboxNetworkAccessControl,
  type TerminationReason,
} from "@svc/contract";
import type { Logger } from "../../log.ts";
import {
  type Executor,
  ExecutorError,
  type SandboxSpec,
  type SnapshotTaken,
  type StartedSandbox,
} from "../executor.ts";
import {
  cgroupLayout,
  createCgroups,
  DEFAULT_CGROUP_PARENT,
  daemonGroupPopulated,
  freeze as freezeCgroup,
  killAll,
  listCgroups,
  memoryCgroupDir,
  removeCgroups,
  sandboxGroupDirs,
  thaw as thawCgroup,
} from "./cgroup.ts";
import { ensureDaemonBundle } from "./daemon-bundle.ts";
import { buildTreeDisk, createRootfs, destroyRootfs, rootfsPaths, writeSandboxFile } from "./disk.ts";
import { addResolvedAddresses, applyEgressPolicy, type HostLookup } from "./egress-policy.ts";
import { entrypointCommand, startEntrypoint } from "./entrypoint.ts";
import {
  type GuestMount,
  mountIntoSandbox,
  prepareStaging,
  STAGING_IN_SANDBOX,
  unmountFromSandbox,
} from "./fs-mounts.ts";
import { runHostCommand } from "./host-command.ts";
import { installHostFirewall } from "./host-firewall.ts";
import { ensureDefaultImage, ImageNotFoundError, resolveImage } from "./image.ts";
import { type ImageReference, isImageReference, parseImageReference } from "./image-reference.ts";
import {
  type BindMount,
  daemonCommand,
  type LaunchedSandbox,
  launchSandboxProcess,
  SANDBOX_PATHS,
  setprivArgv,
  warmCompileCache,
} from "./launch.ts";
import { checkLxcfs, lxcfsBinds, sandboxCpuList } from "./lxcfs.ts";
import { loopDevicesUnder, mountsUnder, readMounts } from "./mounts.ts";
import {
  addressesOf,
  allocateIndex,
  createNetwork,
  destroyNetwork,
  hostInterfaceName,
  listNetworks,
  netnsName,
  type SandboxNetwork,
} from "./network.ts";
import { type NodeRuntimeLibs, nodeRuntimeLibs } from "./node-runtime.ts";
import {
  type ImagesInUse,
  type OciImage,
  type OciImageConfig,
  OciImageError,
  type OciImageErrorKind,
  OciImageStore,
  type RegistryCredentials,
} from "./oci-images.ts";
import { SandboxResolver } from "./sandbox-resolver.ts";
import { StartTimeline } from "./start-timeline.ts";

/** Where the built-in image is kept for every server of the machine unless told otherwise. */
export const DEFAULT_IMAGE_CACHE_DIR = "/var/cache/svc";

export interface LocalExecutorOptions {
  dataDir: string;
  /**
   * The machine's image cache: the default image is built once into `<imageCacheDir>/images/default-<recipe
   * hash>` and shared by every server (a lock between them, an atomic rename); default DEFAULT_IMAGE_CACHE_DIR.
   */
  imageCacheDir?: string;
  /** This host's name among several (the executor's id is `local-<hostId>`); default the machine's hostname. */
  hostId?: string;
  cpuOvercommit: number;
  memoryOvercommit: number;
  log: Logger;
  /** How long a new daemon may take to answer its health check. */
  startTimeoutMs?: number;
  /** How the hostnames of egress policies are resolved (default: the host's resolver, /etc/hosts included). */
  lookup?: HostLookup;
  /** The name servers the sandboxes' resolver asks (`address` or `address:port`); default the host's. */
  dnsUpstreams?: string[];
  /** Called with each sandbox's start timeline once it answers (benchmarks); every start is logged too. */
  onStarted?: (id: string, timeline: StartTimeline) => void;
  /** OCI registries (`host` or `host:port`) that may be at a loopback or private address (oci-images.ts). */
  allowedRegistries?: readonly string[];
  /** A project's credentials for a registry host, used by pulls of its sandboxes' images. */
  registryCredentials?: (projectId: string, registry: string) => Promise<RegistryCredentials | undefined>;
}

/** What a sandbox starts on: a tree, and for an OCI image its config and the host's Node libraries. */
interface StartImage {
  rootfs: string;
  oci?: OciImageConfig;
  nodeLibs?: NodeRuntimeLibs;
}

/** The host parts of a sandbox the daemon is launched into. */
interface HostParts {
  cgroupProcs: string[];
  hostname: string;
  network: SandboxNetwork;
  rootDir: string;
  staging: string;
  lxcfsDir: string | undefined;
}

/** The `image` of a sandbox made from an uploaded archive: `archive:<name>@sha256:<hex>` (images/routes). */
export const ARCHIVE_IMAGE = /^archive:([A-Za-z0-9][A-Za-z0-9_.-]*)@(sha256:[a-f0-9]{64})$/;

/** The termination reason of each way a pull fails. */
const PULL_FAILURES: Record<OciImageErrorKind, TerminationReason> = {
  not_found: "ImageNotFound",
  unauthorized: "ImagePullUnauthorized",
  unreachable: "ImagePullFailed",
  blocked_address: "ImagePullFailed",
  invalid: "ImagePullFailed",
};

/** The daemon's flags that make an OCI image's ENV and WORKDIR the defaults of the processes it starts. */
function imageDefaultArgs(config: OciImageConfig): string[] {
  const args: string[] = [];
  for (const pair of config.env) if (/^[^=]+=/.test(pair)) args.push("--default-env", pair);
  if (config.workingDir) args.push("--default-working-dir", config.workingDir);
  return args;
}

/** The sandbox's hostname: its name (or id) made a DNS label. */
function hostnameOf(spec: SandboxSpec): string {
  return (
    (spec.name ?? spec.id)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "-")
      .slice(0, 63)
      .replace(/^-+|-+$/g, "") || "sandbox"
  );
}

/** The host's resolver: every IPv4 address of a name. */
const hostLookup: HostLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, family: 4 })).map((entry) => entry.address);

/** How sandboxes start their daemon: a bundle (else the sources' main.ts) and a compile cache, each if available. */
interface DaemonCode {
  daemonBundle?: string;
  compileCacheDir?: string;
}

/** What a sandbox's directory records for cleanup after a crash. */
interface SandboxState {
  /** Absent until the sandbox's network is being made on that index. */
  netIndex?: number;
  pid: number;
}

/**
 * Where the daemon spools process output beyond its memory buffer: on the sandbox's own disk (the overlay root),
 * so a flood of output is bounded by disk_mb. /tmp would be a tmpfs charged to the sandbox's memory.
 */
export const DAEMON_SPOOL_DIR = "/var/lib/svc-daemon/spool";
/**
 * The daemon's OOM score: below its children's (it raises theirs to 1000), so a memory storm that reaches the
 * sandbox's limit loses its own processes first.
 */
export const DAEMON_OOM_SCORE_ADJ = -500;

/** The daemon's and the workload's cgroup directories, bound read-write for the daemon (process-cgroups.ts). */
function processCgroupBinds(id: string): BindMount[] {
  const binds: BindMount[] = [];
  for (const group of ["daemon", "workload"] as const) {
    for (const [hierarchy, dir] of Object.entries(sandboxGroupDirs(id, group))) {
      binds.push({
        source: dir,
        dest: `${SANDBOX_PATHS.processCgroups}/${group}/${hierarchy}`,
        readOnly: false,
      });
    }
  }
  return binds;
}

/**
 * The daemon's environment (only the daemon's: it starts user processes with a clean environment of their own).
 * The young generation is what an idle daemon holds most of beyond its code: V8 grows it to its maximum during
 * start-up and keeps it; 1 MiB semi-spaces instead of 4 take ~4 MiB off an idle daemon that has run a process.
 */
export const DAEMON_ENV: Readonly<Record<string, string>> = { NODE_OPTIONS: "--max-semi-space-size=1" };

/**
 * The share of the host's task ids (the lower of kernel.pid_max and kernel.threads-max) that all sandboxes
 * together may use: the parent cgroup's `pids.max`. Each sandbox has its own limit too (cgroup.ts), but
 * several fork bombs at once must not leave the host unable to fork.
 */
const SANDBOXES_TASK_SHARE = 0.75;
/** Memory the host keeps for itself whatever the sandboxes do: the parent memory cgroup's limit is the rest. */
const HOST_MEMORY_RESERVE_BYTES = (total: number) => Math.max(1024 ** 3, Math.floor(total * 0.1));

const REQUIRED_TOOLS = ["bwrap", "nsenter", "ip", "nft", "mkfs.ext4", "losetup", "debootstrap", "setpriv"];

function missingTools(): string[] {
  return REQUIRED_TOOLS.filter((tool) => {
    try {
      execFileSync("sh", ["-c", `command -v ${tool}`], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  });
}

/** The host's name servers (what the sandboxes' resolver asks, from the host). */
function hostNameServers(): string[] {
  try {
    return readFileSync("/etc/resolv.conf", "utf8")
      .split("\n")
      .map((line) => /^nameserver\s+(\S+)/.exec(line)?.[1])
      .filter((s): s is string => s !== undefined);
  } catch {
    return [];
  }
}

/** What the daemon prints once it listens (packages/daemon/src/main.ts). */
const DAEMON_LISTENING = "svc-daemon: listening on";

/**
 * Waits until the daemon answers its health check. Rather than polling it from launch, this watches the daemon's
 * log (inotify) for the line it prints once it listens, then asks its health once: no requests (and no CPU)
 * while Node starts, and no polling delay after. A missed change is caught by a re-read every 50 ms, and a health
 * check that fails after the line (not expected) falls back to polling every 5 ms.
 */
async function waitForDaemon(
  url: string,
  logFile: string,
  timeoutMs: number,
  exited: Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  let changed: () => void = () => {};
  const watcher = watch(logFile, () => changed());
  watcher.on("error", () => {});
  try {
    let offset = 0;
    let tail = "";
    while (!tail.includes(DAEMON_LISTENING)) {
      if (gone) throw new Error("the sandbox's daemon exited during start");
      if (Date.now() > deadline)
        throw new Error(`the sandbox's daemon did not answer within ${timeoutMs} ms`);
      const handle = await open(logFile, "r");
      try {
        const { bytesRead, buffer } = await handle.read({
          buffer: Buffer.alloc(64 * 1024),
          position: offset,
        });
        offset += bytesRead;
        tail = (tail + buffer.toString("utf8", 0, bytesRead)).slice(-4096);
      } finally {
        await handle.close();
      }
      if (tail.includes(DAEMON_LISTENING)) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        changed = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    watcher.close();
  }
  while (Date.now() < deadline) {
    if (gone) throw new Error("the sandbox's daemon exited during start");
    try {
      const response = await fetch(`${url}${runtimeRoutes.runtimeHealth.path}`, {
        signal: AbortSignal.timeout(1000),
      });
      if (response.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`the sandbox's daemon did not answer within ${timeoutMs} ms`);
}

/** Like Promise.all, but rejects (with the first error) only once every promise has settled. */
async function allDone<T extends readonly unknown[]>(
  promises: { [K in keyof T]: Promise<T[K]> },
): Promise<T> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Reads a number from a procfs or cgroupfs file; undefined when it cannot. */
function readNumberFile(path: string): number | undefined {
  try {
    const value = Number(readFileSync(path, "utf8").trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Limits on the parent cgroup of all sandboxes (`<hierarchy>/svc`): a share of the host's task ids and all
 * memory but a reserve, so that sandboxes together (fork bombs, overcommitted memory) cannot starve the host
 * and its server. Within the parent, the OOM killer then picks sandbox workloads (oom_score_adj 1000).
 */
async function limitSandboxesParent(): Promise<void> {
  const layout = cgroupLayout();
  const pidsDir = join(layout.v1.pids, DEFAULT_CGROUP_PARENT);
  const memoryDir = join(layout.v1.memory, DEFAULT_CGROUP_PARENT);
  await mkdir(pidsDir, { recursive: true });
  await mkdir(memoryDir, { recursive: true });
  const taskIds = Math.min(
    readNumberFile("/proc/sys/kernel/pid_max") ?? 32768,
    readNumberFile("/proc/sys/kernel/threads-max") ?? 32768,
  );
  await writeFile(join(pidsDir, "pids.max"), String(Math.floor(taskIds * SANDBOXES_TASK_SHARE)));
  const total = os.totalmem();
  const memoryLimit = total - HOST_MEMORY_RESERVE_BYTES(total);
  // Rounded to pages, as the kernel stores it; memsw (when present) must stay ≥ the memory limit.
  await writeFile(join(memoryDir, "memory.limit_in_bytes"), String(memoryLimit - (memoryLimit % 4096)));
}

/** What the host still holds for a sandbox; `[]` once it is gone. For leak checks (tests, diagnostics). */
export async function hostResourcesOf(options: {
  dataDir: string;
  id: string;
  /** The sandbox's network index (record, state.json); its host interface is checked too. */
  netIndex?: number | null;
}): Promise<string[]> {
  const { dataDir, id, netIndex } = options;
  const found: string[] = [];
  if ((await listCgroups()).includes(id)) found.push(`cgroup ${DEFAULT_CGROUP_PARENT}/${id}`);
  const networks = await listNetworks();
  if (networks.ids.includes(id)) found.push(`netns ${netnsName(id)}`);
  if (netIndex !== undefined && netIndex !== null && networks.indexes.includes(netIndex)) {
    found.push(`veth ${hostInterfaceName(netIndex)}`);
  }
  const sandboxDir = join(dataDir, "sandboxes", id);
  for (const mount of mountsUnder(sandboxDir)) found.push(`mount ${mount.mountPoint}`);
  for (const loop of loopDevicesUnder(sandboxDir)) found.push(`loop ${loop.device} (${loop.backingFile})`);
  if (existsSync(sandboxDir)) found.push(`directory ${sandboxDir}`);
  return found;
}

/**
 * Runs sandboxes on this Linux host with the recipe of sandbox-recipe.md: cgroups, a network namespace with
 * its egress policy, an overlay root on a sized ext4 image, and the daemon started by bwrap + setpriv +
 * seccomp. Each sandbox lives in `<dataDir>/sandboxes/<id>/`, made before anything else of it and removed
 * last: after a crash, that directory (its state.json: network index, pid) is what says which cgroups, network
 * namespace, mounts and loop device of the host are this server's to remove.
 */
export class LocalExecutor implements Executor {
  readonly id: string;
  readonly #o: LocalExecutorOptions;
  #unavailable: string | null = null;
  #reserved = new Set<number>();
  /** Callers waiting on the default image's build, told each progress line. */
  readonly #imageWatchers = new Set<(line: string) => void>();
  /** The last progress line of a build under way; undefined when none is. */
  #imageLastLine: string | undefined;
  #lastIndex: number | undefined;
  #daemonCode: Promise<DaemonCode> | undefined;
  #resolver: SandboxResolver | undefined;
  #oci: OciImageStore | undefined;

  constructor(options: LocalExecutorOptions) {
    this.#o = options;
    this.id = `local-${options.hostId ?? os.hostname()}`;
  }

  /**
   * Checks the host once; when it can run sandboxes, installs the host firewall, limits the parent cgroup of all
   * sandboxes and starts the image build.
   */
  async init(): Promise<void> {
    if (process.platform !== "linux") this.#unavailable = "the local executor needs Linux";
    else if (process.getuid?.() !== 0) this.#unavailable = "the local executor needs root";
    else {
      const missing = missingTools();
      if (missing.length > 0)
        this.#unavailable = `missing tools: ${missing.join(", ")} (run scripts/install.sh)`;
      else if (!existsSync("/sys/fs/cgroup/memory") || !existsSync("/sys/fs/cgroup/unified")) {
        this.#unavailable = "cgroup v1 memory controller or the unified hierarchy is missing";
      }
    }
    if (this.#unavailable) return;
    await installHostFirewall({ resolverPort: 53 });
    this.#resolver = new SandboxResolver({
      upstreams: this.#o.dnsUpstreams ?? hostNameServers(),
      admit: (id, rules, name, addresses, ttl) => addResolvedAddresses(id, rules, name, addresses, ttl),
      log: this.#o.log,
    });
    await limitSandboxesParent().catch((error) =>
      this.#o.log("could not limit the sandboxes' parent cgroup", { error: String(error) }),
    );
    await mkdir(this.#sandboxesDir(), { recursive: true, mode: 0o700 });
    // Root's alone: unpacked images keep their setuid files, which no other host user may reach.
    await mkdir(this.#ociDir(), { recursive: true, mode: 0o700 });
    await chmod(this.#ociDir(), 0o700);
    // What a pull killed with the server left: its credentials file and a half-unpacked tree.
    for (const entry of await readdir(this.#ociDir())) {
      if (/^\.(auth|unpack)-/.test(entry))
        await rm(join(this.#ociDir(), entry), { recursive: true, force: true });
    }
    // Build the image (and warm the daemon's compile cache) now, so the first sandbox does not wait for it.
    this.#image().then(
      () => undefined,
      (error) => this.#o.log("default image build failed", { error: String(error) }),
    );
  }

  unavailableReason(): string | null {
    return this.#unavailable;
  }

  capacity(): { cpus: number; memoryMb: number } {
    return {
      cpus: os.availableParallelism() * this.#o.cpuOvercommit,
      memoryMb: Math.floor((os.totalmem() / 1048576) * this.#o.memoryOvercommit),
    };
  }

  #sandboxesDir(): string {
    return join(this.#o.dataDir, "sandboxes");
  }

  /**
   * The default image's rootfs from the machine's cache, built there first when missing. While it builds, each
   * progress line goes to the log and to every caller's `onProgress` (a start waiting on it).
   */
  async #image(onProgress?: (line: string) => void): Promise<string> {
    if (onProgress) {
      this.#imageWatchers.add(onProgress);
      // A build (or a wait for another server's) already under way: say so at once, not at its next line.
      if (this.#imageLastLine !== undefined) onProgress(this.#imageLastLine);
    }
    try {
      const rootfs = await ensureDefaultImage(this.#o.imageCacheDir ?? DEFAULT_IMAGE_CACHE_DIR, {
        onProgress: (line) => {
          this.#imageLastLine = line;
          this.#o.log("building the default image", { step: line });
          for (const watcher of this.#imageWatchers) watcher(line);
        },
      });
      this.#imageLastLine = undefined;
      return rootfs;
    } finally {
      if (onProgress) this.#imageWatchers.delete(onProgress);
    }
  }

  /**
   * The daemon's code as sandboxes start it: the daemon bundled into one file (daemon-bundle.ts) and a Node
   * compile cache of it (a third off its start-up), both kept in `<dataDir>/cache` under the bundle's content hash,
   * so they are made once (at the first start after install or a change of the daemon), not per server start
   * or sandbox. Either may be missing (logged): then the daemon starts from its sources, or without a cache.
   */
  #code(image: StartImage): Promise<DaemonCode> {
    this.#daemonCode ??= (async () => {
      const cacheRoot = join(this.#o.dataDir, "cache");
      let daemonBundle: string | undefined;
      try {
        daemonBundle = await ensureDaemonBundle({ cacheDir: cacheRoot });
      } catch (error) {
        this.#o.log("daemon bundle not available, sandboxes start the daemon's sources", {
          error: String(error),
        });
      }
      const name = daemonBundle ? basename(daemonBundle, ".mjs") : "daemon-sources";
      const cacheDir = join(cacheRoot, `compile-${name}`);
      // Older bundles and their compile caches go.
      for (const entry of await readdir(cacheRoot).catch(() => [] as string[])) {
        if (entry === basename(cacheDir) || (daemonBundle && entry === basename(daemonBundle))) continue;
        await rm(join(cacheRoot, entry), { recursive: true, force: true });
      }
      // The sources' cache is warmed each time (a changed file is simply missed until the next warm-up); the
      // bundle's only once: its name is its content.
      const warmed = join(cacheDir, ".warmed");
      if (daemonBundle && existsSync(warmed)) return { daemonBundle, compileCacheDir: cacheDir };
      try {
        await warmCompileCache({
          cacheDir,
          imageRootfs: image.rootfs,
          daemonBundle,
          nodeLibs: image.nodeLibs,
        });
        await writeFile(warmed, "");
        return { daemonBundle, compileCacheDir: cacheDir };
      } catch (error) {
        this.#o.log("daemon compile cache not available", { error: String(error) });
        return { daemonBundle };
      }
    })();
    return this.#daemonCode;
  }

  /**
   * Starts a sandbox in named steps: its image (built, pulled or found), the daemon's code, the host parts
   * (cgroups, network, disk, mounts staging), the launch, and the wait until the daemon answers.
   */
  async start(spec: SandboxSpec): Promise<StartedSandbox> {
    const timeline = new StartTimeline();
    const image = await timeline.time("image", () => this.#startImage(spec));
    const code = await timeline.time("daemon code", () => this.#code(image));
    const sandboxDir = join(this.#sandboxesDir(), spec.id);
    /** Network indexes this start held (one, unless another server took the first at the same moment). */
    const held: number[] = [];
    try {
      await mkdir(sandboxDir, { recursive: true, mode: 0o700 });
      const host = await this.#hostParts(spec, sandboxDir, image, held, timeline);
      const launched = await timeline.time("launch", () => this.#launch(spec, sandboxDir, image, code, host));
      const launchedAt = timeline.now();
      await writeFile(
        join(sandboxDir, "state.json"),
        JSON.stringify({ netIndex: host.network.index, pid: launched.pid } satisfies SandboxState),
      );
      const address = `http://${host.network.sandboxIp}:${RUNTIME_PORT}`;
      await timeline.time("daemon wait (until it answers)", () => this.#answered(address, launched));
      await timeline.time("cgroup limits", () =>
        createCgroups(spec.id, { cpus: spec.cpus, memoryMb: spec.memoryMb }),
      );
      // The image's ENTRYPOINT + CMD (or the request's entrypoint) as a background process; a command that
      // cannot be started fails the start with the daemon's reason.
      const argv = entrypointCommand(spec.entrypoint, image.oci);
      if (argv) {
        const { pid } = await timeline.time("entrypoint", () =>
          startEntrypoint({
            address,
            sandboxId: spec.id,
            secret: spec.authSecret,
            argv,
            timeoutMs: this.#o.startTimeoutMs ?? 30_000,
          }),
        );
        this.#o.log("sandbox entrypoint started", { id: spec.id, pid, command: argv[0] });
      }
      await this.#daemonPhases(launched.logFile, launchedAt, timeline);
      this.#o.log("sandbox started", { id: spec.id, timeline: timeline.durations() });
      this.#o.onStarted?.(spec.id, timeline);
      return {
        containerId: String(launched.pid),
        address,
        netIndex: host.network.index,
        timeline: timeline.toRecord(),
      };
    } finally {
      for (const index of held) this.#reserved.delete(index);
    }
  }

  /**
   * The tree a sandbox starts on: the built-in image (built once per machine), an operator's image by name, an
   * OCI image by reference (pulled into the store unless it holds it) or an uploaded archive's image by digest.
   */
  async #startImage(spec: SandboxSpec): Promise<StartImage> {
    const image = spec.image;
    if (image && isImageReference(image)) return this.#ociImage(spec, image);
    try {
      return {
        rootfs:
          image && image !== "default"
            ? await resolveImage(this.#o.dataDir, image)
            : await this.#image(spec.onProgress && ((line) => spec.onProgress?.("building_image", line))),
      };
    } catch (error) {
      if (error instanceof ImageNotFoundError)
        throw new ExecutorError("ImageNotFound", `image not found: ${image}`);
      throw error;
    }
  }

  /** An OCI image's tree and config, with the host's Node libraries (the image may lack a usable glibc). */
  async #ociImage(spec: SandboxSpec, image: string): Promise<StartImage> {
    const found = await this.#ociPull(spec, image);
    return { rootfs: found.rootfs, oci: found.config, nodeLibs: await nodeRuntimeLibs() };
  }

  /**
   * An OCI image from the store (pulled with the project's credentials unless held, or an uploaded archive's by
   * digest); a failure is an ExecutorError with the reason a start ends with.
   */
  async #ociPull(
    spec: Pick<SandboxSpec, "id" | "projectId" | "onProgress">,
    image: string,
  ): Promise<OciImage> {
    const store = this.#ociStore();
    let found: OciImage | null;
    const archive = ARCHIVE_IMAGE.exec(image);
    try {
      if (archive) {
        found = await store.byDigest(archive[2]);
        if (!found) {
          throw new OciImageError("not_found", `the uploaded image ${archive[1]} is not on this host`);
        }
      } else {
        let reference: ImageReference;
        try {
          reference = parseImageReference(image);
        } catch (error) {
          throw new OciImageError("invalid", `image '${image}': ${(error as Error).message}`);
        }
        const credentials =
          spec.projectId && this.#o.registryCredentials
            ? await this.#o.registryCredentials(spec.projectId, reference.registry)
            : undefined;
        found = await store.pull(reference, {
          credentials,
          scope: spec.projectId ?? "",
          onProgress: (line) => spec.onProgress?.("pulling_image", line),
        });
      }
    } catch (error) {
      if (error instanceof OciImageError) throw new ExecutorError(PULL_FAILURES[error.kind], error.message);
      throw error;
    }
    return found;
  }

  #ociDir(): string {
    return join(this.#o.dataDir, "oci-images");
  }

  /** The executor's OCI image store, in `<dataDir>/oci-images` (root only: images may hold setuid files). */
  #ociStore(): OciImageStore {
    this.#oci ??= new OciImageStore(this.#ociDir(), {
      allowedRegistries: this.#o.allowedRegistries,
    });
    return this.#oci;
  }

  /**
   * Removes OCI image trees no sandbox here has mounted, not listed in `keep` and not served within `graceMs`
   * (OciImageStore.sweep); answers the digests removed.
   */
  async sweepImages(keep: ImagesInUse, graceMs: number): Promise<string[]> {
    if (!existsSync(this.#ociDir())) return [];
    return this.#ociStore().sweep(keep, graceMs);
  }

  /** Imports an uploaded `docker save` / OCI archive into the store; answers its digest, config and size. */
  async importImage(tarFile: string, name: string): Promise<OciImage> {
    return this.#ociStore().importArchive(tarFile, name);
  }

  /**
   * What the daemon runs on besides the image: cgroups, then network, disk and the mount staging directory
   * side by side (all settle before a failure is reported, so nothing is still being made when the caller
   * cleans up), lxcfs's view of /proc, and the sandbox's resolv.conf.
   */
  async #hostParts(
    spec: SandboxSpec,
    sandboxDir: string,
    image: StartImage,
    held: number[],
    timeline: StartTimeline,
  ): Promise<HostParts> {
    // The daemon starts with every host CPU (Node's start-up is ~0.4 CPU-seconds: 4 s under a 0.1-CPU quota);
    // the sandbox's own quota applies once it answers, before the sandbox is reported running. A crash in
    // between leaves the row pending, and a pending sandbox is rebuilt from scratch after a restart.
    const cgroupProcs = await timeline.time("cgroups", () =>
      createCgroups(spec.id, {
        cpus: Math.max(spec.cpus, os.availableParallelism()),
        memoryMb: spec.memoryMb,
      }),
    );
    const hostname = hostnameOf(spec);
    const [network, root, staging] = await allDone([
      this.#network(spec, sandboxDir, held, timeline),
      createRootfs({
        timeline,
        sandboxDir,
        imageRootfs: image.rootfs,
        diskMb: spec.diskMb,
        fromDisk: spec.snapshotId ? this.#snapshotDisk(spec.snapshotId) : undefined,
        files: {
          "/etc/hostname": `${hostname}\n`,
          "/etc/hosts": `127.0.0.1\tlocalhost\n127.0.1.1\t${hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
        },
      }),
      timeline.time("staging", () => prepareStaging(sandboxDir)),
    ]);
    // The sandbox's own view of memory, CPUs and uptime in /proc; without lxcfs, the host's (logged).
    const lxcfsDir = await timeline.time("lxcfs", () =>
      checkLxcfs().catch((error) => {
        this.#o.log("lxcfs unavailable: sandboxes see the host's /proc figures", { error: String(error) });
        return undefined;
      }),
    );
    // The sandbox asks its own name server, on its gateway address (sandbox-resolver.ts).
    await writeSandboxFile(root.rootDir, "/etc/resolv.conf", `nameserver ${network.hostIp}\n`);
    return { cgroupProcs, hostname, network, rootDir: root.rootDir, staging, lxcfsDir };
  }

  /** Launches the daemon (bwrap, setpriv, seccomp); an OCI image's config becomes its processes' defaults. */
  #launch(
    spec: SandboxSpec,
    sandboxDir: string,
    image: StartImage,
    code: DaemonCode,
    host: HostParts,
  ): Promise<LaunchedSandbox> {
    const { daemonBundle, compileCacheDir } = code;
    return launchSandboxProcess({
      sandboxDir,
      extraBinds: [{ source: host.staging, dest: STAGING_IN_SANDBOX }, ...processCgroupBinds(spec.id)],
      oomScoreAdj: DAEMON_OOM_SCORE_ADJ,
      ...(host.lxcfsDir ? { procBinds: lxcfsBinds(host.lxcfsDir) } : {}),
      cpuList: sandboxCpuList(spec.cpus, os.availableParallelism(), host.network.index),
      rootDir: host.rootDir,
      hostname: host.hostname,
      netns: host.network.netns,
      cgroupProcs: host.cgroupProcs,
      command: daemonCommand({
        sandboxId: spec.id,
        memoryCgroup: true,
        bundle: daemonBundle !== undefined,
        nodeLibs: image.nodeLibs,
        ...(image.oci ? { defaultUser: image.oci.user ?? "0" } : {}),
        extraArgs: [
          ...["--spool-dir", DAEMON_SPOOL_DIR, "--process-cgroups", SANDBOX_PATHS.processCgroups],
          ...(image.oci ? imageDefaultArgs(image.oci) : []),
          ...(image.nodeLibs ? ["--setpriv-command", JSON.stringify(setprivArgv(image.nodeLibs))] : []),
        ],
      }),
      env: DAEMON_ENV,
      authSecret: spec.authSecret,
      memoryCgroupDir: memoryCgroupDir(spec.id),
      compileCacheDir,
      daemonBundle,
      nodeLibs: image.nodeLibs,
    });
  }

  /** Waits for the daemon's health; a daemon that never answers fails the start with its log's last lines. */
  async #answered(address: string, launched: LaunchedSandbox): Promise<void> {
    try {
      await waitForDaemon(address, launched.logFile, this.#o.startTimeoutMs ?? 30_000, launched.exited);
    } catch (error) {
      const log = await readFile(launched.logFile, "utf8").catch(() => "");
      throw new Error(
        `${(error as Error).message}${log ? `: ${log.trim().split("\n").slice(-5).join(" | ")}` : ""}`,
      );
    }
  }

  /**
   * Makes the sandbox's network (and its egress policy) on a free index, recorded in state.json first so that a
   * crash leaves a record of it. Interfaces are host-wide: another server on this host can take the same index
   * at the same moment, and then the next free one is tried.
   */
  async #network(
    spec: SandboxSpec,
    sandboxDir: string,
    held: number[],
    timeline: StartTimeline,
  ): Promise<SandboxNetwork> {
    for (let attempt = 1; ; attempt++) {
      const used = [...(await listNetworks()).indexes, ...this.#reserved, ...(await this.#recordedIndexes())];
      const index = allocateIndex(used, { after: this.#lastIndex });
      this.#reserved.add(index);
      held.push(index);
      this.#lastIndex = index;
      await writeFile(
        join(sandboxDir, "state.json"),
        JSON.stringify({ netIndex: index, pid: 0 } satisfies SandboxState),
      );
      try {
        const network = await timeline.time("network.veth", () => createNetwork(spec.id, index));
        await timeline.time("network.egress", () => this.#applyNetwork(spec.id, spec.network, index));
        return network;
      } catch (error) {
        const taken = /interface \S+ already exists|RTNETLINK answers: File exists/.test(
          (error as Error).message,
        );
        // The index is someone else's: a cleanup after this failure must not remove their interface.
        if (taken)
          await writeFile(join(sandboxDir, "state.json"), JSON.stringify({ pid: 0 } satisfies SandboxState));
        if (!taken || attempt >= 5) throw error;
      }
    }
  }

  /**
   * The network indexes this executor's sandboxes hold, as their state.json records them: those adopted after a
   * restart too. The host's interface list alone does not show them all: a server in a network namespace of its
   * own (several hosts on one machine) makes its sandboxes' interfaces there, yet /sys/class/net lists the
   * namespace that mounted it; without these, a restart would try the adopted sandboxes' indexes first.
   */
  async #recordedIndexes(): Promise<number[]> {
    const indexes: number[] = [];
    for (const id of await readdir(this.#sandboxesDir()).catch(() => [] as string[])) {
      try {
        const state = JSON.parse(
          await readFile(join(this.#sandboxesDir(), id, "state.json"), "utf8"),
        ) as SandboxState;
        if (typeof state.netIndex === "number") indexes.push(state.netIndex);
      } catch {
        // No state yet (a start before its network), or one being rewritten: #reserved holds its index.
      }
    }
    return indexes;
  }

  /**
   * Adds the daemon's own start-up phases (its `svc-daemon: start-up {...}` log line: process start, Node
   * bootstrapped, code loaded, listening) to the timeline; `launchedAt` is when the launch command was spawned.
   */
  async #daemonPhases(logFile: string, launchedAt: number, timeline: StartTimeline): Promise<void> {
    const log = await readFile(logFile, "utf8").catch(() => "");
    // The last start-up line (an adopted sandbox's log may hold earlier ones).
    const match = [...log.matchAll(/svc-daemon: start-up (\{.*\})/g)].at(-1);
    if (!match) return;
    const phases = JSON.parse(match[1]) as { origin: number; node: number; code: number; listening: number };
    // The daemon's clock origin on this timeline (both are wall-clock based).
    const start = phases.origin - (performance.timeOrigin + timeline.originMs);
    timeline.add("daemon.exec (bash, nsenter, bwrap, setpriv)", launchedAt, start);
    timeline.add("daemon.node-bootstrap", start, start + phases.node);
    timeline.add("daemon.load-code", start + phases.node, start + phases.code);
    timeline.add("daemon.build-and-listen", start + phases.code, start + phases.listening);
  }

  async updateNetwork(id: string, network: SandboxNetworkAccessControl | null): Promise<void> {
    await this.#applyNetwork(id, network);
  }

  /**
   * The egress policy in one nft transaction, exact hostnames resolved by the host first; then the sandbox's
   * name server follows it (its rules decide which answers open which addresses). DNS may go to that server
   * only, even without internet access.
   */
  async #applyNetwork(
    id: string,
    network: SandboxNetworkAccessControl | null,
    index?: number,
  ): Promise<void> {
    const netIndex = index ?? (await this.#netIndex(id));
    const { hostIp } = addressesOf(netIndex);
    const rules = await applyEgressPolicy(id, network, {
      lookup: this.#o.lookup ?? hostLookup,
      resolvers: [hostIp],
    });
    await this.#resolver?.serve({ id, hostIp, rules });
  }

  async #netIndex(id: string): Promise<number> {
    const state = JSON.parse(
      await readFile(join(this.#sandboxesDir(), id, "state.json"), "utf8"),
    ) as SandboxState;
    if (state.netIndex === undefined) throw new Error(`sandbox ${id} has no network`);
    return state.netIndex;
  }

  async #outerPid(id: string): Promise<number> {
    const sandboxDir = join(this.#sandboxesDir(), id);
    const state = JSON.parse(await readFile(join(sandboxDir, "state.json"), "utf8")) as SandboxState;
    if (!state.pid) throw new Error(`sandbox ${id} has no running process`);
    return state.pid;
  }

  async mount(id: string, mount: GuestMount): Promise<void> {
    const sandboxDir = join(this.#sandboxesDir(), id);
    await mountIntoSandbox({ sandboxDir, outerPid: await this.#outerPid(id), mount });
  }

  async unmount(id: string, path: string): Promise<void> {
    const sandboxDir = join(this.#sandboxesDir(), id);
    await unmountFromSandbox({ sandboxDir, outerPid: await this.#outerPid(id), path });
  }

  async freeze(id: string): Promise<void> {
    await freezeCgroup(id);
  }

  async thaw(id: string): Promise<void> {
    await thawCgroup(id);
  }

  #snapshotDisk(snapshotId: string): string {
    if (!/^(snap|tmpl)_[a-z2-7]{26}$/.test(snapshotId)) throw new Error(`not a snapshot id: ${snapshotId}`);
    return join(this.#o.dataDir, "snapshots", snapshotId, "disk.img");
  }

  /**
   * Freezes the sandbox's processes, then its file system (fsfreeze flushes it and holds writes), copies the
   * disk image sparsely, and lets both go again.
   */
  async snapshot(id: string, snapshotId: string): Promise<SnapshotTaken> {
    const paths = rootfsPaths(join(this.#sandboxesDir(), id));
    const imageDigest = this.#lowerDigest(paths.rootDir);
    const target = this.#snapshotDisk(snapshotId);
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await freezeCgroup(id);
    try {
      await runHostCommand("fsfreeze", ["--freeze", paths.fsDir]);
      try {
        await runHostCommand("cp", ["--sparse=always", "--reflink=auto", paths.diskImage, target]);
      } finally {
        await runHostCommand("fsfreeze", ["--unfreeze", paths.fsDir]);
      }
    } catch (error) {
      await rm(dirname(target), { recursive: true, force: true });
      throw error;
    } finally {
      await thawCgroup(id);
    }
    const copied = await stat(target);
    return { sizeBytes: copied.blocks * 512, diskBytes: copied.size, imageDigest };
  }

  /**
   * The manifest digest of the OCI image tree a sandbox's root overlay lies over (its lower dir, from the mount
   * table: right for a sandbox adopted after a restart too); null for the built-in or an operator image.
   */
  #lowerDigest(rootDir: string): string | null {
    const overlay = readMounts().find((m) => m.mountPoint === resolve(rootDir) && m.fsType === "overlay");
    const lower = /(?:^|,)lowerdir=([^,]*)/.exec(overlay?.superOptions ?? "")?.[1] ?? "";
    const tree = resolve(this.#ociDir(), "rootfs");
    for (const dir of lower.split(":")) {
      const hex = dir.startsWith(`${tree}/`)
        ? /^([a-f0-9]{64})\/rootfs$/.exec(dir.slice(tree.length + 1))
        : null;
      if (hex) return `sha256:${hex[1]}`;
    }
    return null;
  }

  async buildTemplateDisk(
    templateId: string,
    tarFile: string,
    image?: { image: string | null; projectId: string },
  ): Promise<{ sizeBytes: number; imageDigest: string | null }> {
    // A registry image first: one that cannot be pulled fails the template before its disk is made. (An
    // uploaded image is pinned by its digest already, and the built-in one has none.)
    let imageDigest: string | null = null;
    if (image?.image && isImageReference(image.image) && !ARCHIVE_IMAGE.test(image.image)) {
      imageDigest = (await this.#ociPull({ id: templateId, projectId: image.projectId }, image.image)).digest;
    }
    const diskImage = this.#snapshotDisk(templateId);
    await mkdir(dirname(diskImage), { recursive: true, mode: 0o700 });
    // Room for the tree twice over and some to spare; a sandbox with a larger disk_mb grows it at start.
    const sizeMb = Math.max(256, Math.ceil(((await stat(tarFile)).size * 2) / 1048576) + 128);
    try {
      await buildTreeDisk({ diskImage, tarFile, sizeMb });
    } catch (error) {
      await rm(dirname(diskImage), { recursive: true, force: true });
      throw error;
    }
    return { sizeBytes: (await stat(diskImage)).blocks * 512, imageDigest };
  }

  async removeSnapshot(snapshotId: string): Promise<void> {
    await rm(dirname(this.#snapshotDisk(snapshotId)), { recursive: true, force: true });
  }

  /** The daemon's cgroup (cgroup.ts) still has a process: the daemon, or something it left behind in it. */
  async daemonRunning(id: string): Promise<boolean> {
    return daemonGroupPopulated(id);
  }

  async isAlive(_id: string, started: StartedSandbox): Promise<boolean> {
    try {
      const response = await fetch(`${started.address}${runtimeRoutes.runtimeHealth.path}`, {
        signal: AbortSignal.timeout(2000),
      });
      return response.ok;
    } catch {
      return false;
    }
  }

  /**
   * Destroy order of the recipe: kill every process, remove cgroups, network, then the disk. Every step is tried
   * even when an earlier one fails (a step that failed is retried by the next stop), so one stuck part never
   * keeps the others alive; the sandbox dir, the record of what to clean, goes last and only when all worked.
   */
  async stop(id: string): Promise<void> {
    const sandboxDir = join(this.#sandboxesDir(), id);
    let state: SandboxState | undefined;
    try {
      state = JSON.parse(await readFile(join(sandboxDir, "state.json"), "utf8")) as SandboxState;
    } catch {}
    const failures: string[] = [];
    const step = async (what: string, action: () => Promise<void>) => {
      try {
        await action();
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
      }
    };
    this.#resolver?.release(id);
    await step("kill", () => killAll(id));
    await step("cgroups", () => removeCgroups(id));
    await step("network", () => destroyNetwork(id, state?.netIndex));
    if (failures.length === 0) await step("disk", () => destroyRootfs(sandboxDir));
    if (failures.length > 0) {
      throw new Error(`sandbox ${id} not fully removed: ${failures.join("; ")}`);
    }
  }

  /**
   * Sandboxes of this data directory that still have a directory here. Only those: cgroups and network namespaces
   * are host-wide, and another server (another data directory) on the host owns its own. A sandbox's directory is
   * made before anything else of it and removed last, so it is the record of what a crash left.
   */
  async leftovers(): Promise<string[]> {
    return readdir(this.#sandboxesDir()).catch(() => [] as string[]);
  }
}
