import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { type Executor, ExecutorError, type SandboxSpec, type StartedSandbox } from "../executor.ts";
import { createCgroups, killAll, listCgroups, memoryCgroupDir, removeCgroups } from "./cgroup.ts";
import { createRootfs, destroyRootfs } from "./disk.ts";
import { applyEgressPolicy } from "./egress-policy.ts";
import { installHostFirewall } from "./host-firewall.ts";
import { ensureDefaultImage, ImageNotFoundError, resolveImage } from "./image.ts";
import { daemonCommand, launchSandboxProcess, warmCompileCache } from "./launch.ts";
import { allocateIndex, createNetwork, destroyNetwork, listNetworks } from "./network.ts";

export interface LocalExecutorOptions {
  dataDir: string;
  cpuOvercommit: number;
  memoryOvercommit: number;
  log: (message: string, fields?: Record<string, unknown>) => void;
  /** How long a new daemon may take to answer its health check. */
  startTimeoutMs?: number;
}

/** What a sandbox's directory records for cleanup after a crash. */
interface SandboxState {
  netIndex: number;
  pid: number;
}

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

/** The host's name servers a sandbox can reach (loopback ones live in the host's namespace only). */
function resolvConf(): string {
  let servers: string[] = [];
  try {
    servers = readFileSync("/etc/resolv.conf", "utf8")
      .split("\n")
      .map((line) => /^nameserver\s+(\S+)/.exec(line)?.[1])
      .filter((s): s is string => s !== undefined && !s.startsWith("127.") && s !== "::1");
  } catch {}
  return servers.map((s) => `nameserver ${s}\n`).join("");
}

async function waitForHealth(url: string, timeoutMs: number, exited: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  exited.then(() => {
    gone = true;
  });
  let delay = 5;
  while (Date.now() < deadline) {
    if (gone) throw new Error("the sandbox's daemon exited during start");
    try {
      const response = await fetch(`${url}/api/v1/health`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
  throw new Error(`the sandbox's daemon did not answer within ${timeoutMs} ms`);
}

/**
 * Runs sandboxes on this Linux host with the recipe of sandbox-recipe.md: cgroups, a network namespace with
 * its egress policy, an overlay root on a sized ext4 image, and the daemon started by bwrap + setpriv +
 * seccomp. Each sandbox lives in `<dataDir>/sandboxes/<id>/`; what it holds on the host is found again from
 * there, from its cgroups and from its network namespace after a crash.
 */
export class LocalExecutor implements Executor {
  readonly id: string;
  readonly #o: LocalExecutorOptions;
  #unavailable: string | null = null;
  #reserved = new Set<number>();
  #lastIndex: number | undefined;
  #compileCache: Promise<string | undefined> | undefined;

  constructor(options: LocalExecutorOptions) {
    this.#o = options;
    this.id = `local-${os.hostname()}`;
  }

  /** Checks the host once; when it can run sandboxes, installs the host firewall and starts the image build. */
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
    await installHostFirewall();
    await mkdir(this.#sandboxesDir(), { recursive: true, mode: 0o700 });
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

  #image(): Promise<string> {
    return ensureDefaultImage(this.#o.dataDir, {
      onProgress: (line) => this.#o.log("building the default image", { step: line }),
    });
  }

  /** A compile cache of the daemon's modules, made once per server start (3× faster daemon start-up). */
  #cache(imageRootfs: string): Promise<string | undefined> {
    this.#compileCache ??= (async () => {
      const cacheDir = join(this.#o.dataDir, "cache", `compile-${process.pid}`);
      try {
        await rm(join(this.#o.dataDir, "cache"), { recursive: true, force: true });
        await warmCompileCache({ cacheDir, imageRootfs });
        return cacheDir;
      } catch (error) {
        this.#o.log("daemon compile cache not available", { error: String(error) });
        return undefined;
      }
    })();
    return this.#compileCache;
  }

  async start(spec: SandboxSpec): Promise<StartedSandbox> {
    let imageRootfs: string;
    try {
      imageRootfs =
        spec.image && spec.image !== "default"
          ? await resolveImage(this.#o.dataDir, spec.image)
          : await this.#image();
    } catch (error) {
      if (error instanceof ImageNotFoundError)
        throw new ExecutorError("ImageNotFound", `image not found: ${spec.image}`);
      throw error;
    }
    const compileCacheDir = await this.#cache(imageRootfs);
    const sandboxDir = join(this.#sandboxesDir(), spec.id);
    const netIndex = allocateIndex([...(await listNetworks()).indexes, ...this.#reserved], {
      after: this.#lastIndex,
    });
    this.#reserved.add(netIndex);
    this.#lastIndex = netIndex;
    try {
      await mkdir(sandboxDir, { recursive: true, mode: 0o700 });
      await writeFile(
        join(sandboxDir, "state.json"),
        JSON.stringify({ netIndex, pid: 0 } satisfies SandboxState),
      );
      const cgroupProcs = await createCgroups(spec.id, { cpus: spec.cpus, memoryMb: spec.memoryMb });
      const network = await createNetwork(spec.id, netIndex);
      await applyEgressPolicy(spec.id, spec.network);
      const hostname =
        (spec.name ?? spec.id)
          .toLowerCase()
          .replace(/[^a-z0-9-]/g, "-")
          .slice(0, 63)
          .replace(/^-+|-+$/g, "") || "sandbox";
      const root = await createRootfs({
        sandboxDir,
        imageRootfs,
        diskMb: spec.diskMb,
        files: {
          "/etc/hostname": `${hostname}\n`,
          "/etc/hosts": `127.0.0.1\tlocalhost\n127.0.1.1\t${hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
          "/etc/resolv.conf": resolvConf(),
        },
      });
      const launched = await launchSandboxProcess({
        sandboxDir,
        rootDir: root.rootDir,
        hostname,
        netns: network.netns,
        cgroupProcs,
        command: daemonCommand({ sandboxId: spec.id, memoryCgroup: true }),
        authSecret: spec.authSecret,
        memoryCgroupDir: memoryCgroupDir(spec.id),
        compileCacheDir,
      });
      await writeFile(
        join(sandboxDir, "state.json"),
        JSON.stringify({ netIndex, pid: launched.pid } satisfies SandboxState),
      );
      const address = `http://${network.sandboxIp}:9501`;
      try {
        await waitForHealth(address, this.#o.startTimeoutMs ?? 30_000, launched.exited);
      } catch (error) {
        const log = await readFile(launched.logFile, "utf8").catch(() => "");
        throw new Error(
          `${(error as Error).message}${log ? `: ${log.trim().split("\n").slice(-5).join(" | ")}` : ""}`,
        );
      }
      return { containerId: String(launched.pid), address, netIndex };
    } finally {
      this.#reserved.delete(netIndex);
    }
  }

  async isAlive(_id: string, started: StartedSandbox): Promise<boolean> {
    try {
      const response = await fetch(`${started.address}/api/v1/health`, { signal: AbortSignal.timeout(2000) });
      return response.ok;
    } catch {
      return false;
    }
  }

  /** Destroy order of the recipe: kill every process, remove cgroups, network, then the disk. */
  async stop(id: string): Promise<void> {
    const sandboxDir = join(this.#sandboxesDir(), id);
    let state: SandboxState | undefined;
    try {
      state = JSON.parse(await readFile(join(sandboxDir, "state.json"), "utf8")) as SandboxState;
    } catch {}
    await killAll(id).catch((error) => this.#o.log("kill failed", { sandbox: id, error: String(error) }));
    await removeCgroups(id);
    await destroyNetwork(id, state?.netIndex);
    await destroyRootfs(sandboxDir);
  }

  async leftovers(): Promise<string[]> {
    const ids = new Set<string>([...(await listCgroups()), ...(await listNetworks()).ids]);
    for (const entry of await readdir(this.#sandboxesDir()).catch(() => [] as string[])) ids.add(entry);
    return [...ids];
  }
}
