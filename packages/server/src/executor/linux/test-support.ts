/**
 * # test-support
 *
 * What the sandbox tests share: the host tools they need and the rule for a missing one (CI=true: fail;
 * otherwise skip with a message); the cached default image (built once into `SVC_TEST_IMAGE_DIR` or
 * `<repo>/.svc-test-cache`, reused by later runs; older recipes' images removed); temporary cgroups and network
 * namespaces that tests create and remove themselves.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ensureDefaultImage, removeUnusedImages } from "./image.ts";
import { LocalExecutor } from "./local-executor.ts";

export const REPO_ROOT = fileURLToPath(new URL("../../../../../", import.meta.url)).replace(/\/$/, "");

/** The data dir whose `images/` holds the tests' cached default image. */
export const TEST_DATA_DIR = process.env.SVC_TEST_IMAGE_DIR ?? `${REPO_ROOT}/.svc-test-cache`;

function hasTool(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/**
 * The host tools a test needs to start sandboxes of the default image: namespaces (bwrap, nsenter), the
 * daemon's user (setpriv), the network (ip, nft), the root disk (mkfs.ext4) and the image build (debootstrap).
 * A test file passes them to `missingPrerequisite` with whatever else it runs.
 */
export const SANDBOX_TOOLS: readonly string[] = [
  "bwrap",
  "nsenter",
  "setpriv",
  "ip",
  "nft",
  "mkfs.ext4",
  "debootstrap",
];

/** The tools of the OCI image tests: the reference registry on loopback, its htpasswd, skopeo and umoci. */
export const REGISTRY_TOOLS: readonly string[] = ["docker-registry", "skopeo", "umoci", "htpasswd"];

/**
 * Why these tests cannot run here (not root, a tool missing), or undefined when they can; a tool is a command
 * name or an absolute path. Throws instead when CI=true: CI runs as root with everything scripts/install.sh
 * installs, so a missing piece there is a failure, never a silent skip.
 */
export function missingPrerequisite(tools: readonly string[]): string | undefined {
  let reason: string | undefined;
  if (process.getuid?.() !== 0) reason = "needs root";
  else {
    const missing = tools.filter((t) => !hasTool(t));
    if (missing.length)
      reason = `missing tools: ${missing.join(", ")} (scripts/install.sh test installs them)`;
  }
  if (reason && process.env.CI === "true") throw new Error(`CI=true and ${reason}`);
  if (reason) console.log(`# skipped: ${reason}`);
  return reason;
}

/** Whatever sandboxes of `dataDir` are left (a test failed half-way), removed the way a restarted server would. */
export async function removeLeftovers(dataDir: string): Promise<void> {
  const executor = new LocalExecutor({ dataDir, cpuOvercommit: 1, memoryOvercommit: 1, log: () => {} });
  for (const id of await executor.leftovers()) await executor.stop(id).catch(() => undefined);
}

let image: Promise<string> | undefined;

/** The default image's rootfs in the tests' cache, built on first use (progress on stderr). */
export function testImageRootfs(): Promise<string> {
  image ??= (async () => {
    const rootfs = await ensureDefaultImage(TEST_DATA_DIR, {
      onProgress: (line) => process.stderr.write(`# image: ${line}\n`),
    });
    // Images of older recipes are of no use to later runs (one still mounted somewhere is kept).
    await removeUnusedImages(TEST_DATA_DIR, []);
    return rootfs;
  })();
  return image;
}

const CGROUP_CONTROLLERS = ["memory", "cpu", "cpuacct", "pids", "freezer", "unified"] as const;

export interface TestCgroups {
  name: string;
  dirs: Record<(typeof CGROUP_CONTROLLERS)[number], string>;
  /** The `cgroup.procs` file of each directory, for launch's cgroupProcs. */
  procs: string[];
  /** Kills every process in the group (cgroup2 `cgroup.kill`) and waits until it is empty. */
  kill(): Promise<void>;
  /** kill(), then removes the directories. */
  remove(): Promise<void>;
}

/** Temporary cgroups `/sys/fs/cgroup/<controller>/svc-test-<random>` (v1 controllers plus the unified tree). */
export function createTestCgroups(): TestCgroups {
  const name = `svc-test-${randomBytes(4).toString("hex")}`;
  const dirs = Object.fromEntries(
    CGROUP_CONTROLLERS.map((c) => [c, `/sys/fs/cgroup/${c}/${name}`]),
  ) as TestCgroups["dirs"];
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  const kill = async () => {
    writeFileSync(`${dirs.unified}/cgroup.kill`, "1");
    const deadline = Date.now() + 10_000;
    while (/populated 1/.test(readFileSync(`${dirs.unified}/cgroup.events`, "utf8"))) {
      if (Date.now() > deadline) throw new Error(`cgroup ${name} still populated`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return {
    name,
    dirs,
    procs: Object.values(dirs).map((d) => `${d}/cgroup.procs`),
    kill,
    remove: async () => {
      await kill();
      for (const dir of Object.values(dirs)) rmdirSync(dir);
    },
  };
}

/** A temporary network namespace (only `lo`, up) named svc-test-<random>; `remove` deletes it. */
export function createTestNetns(): { name: string; remove(): void } {
  const name = `svc-test-${randomBytes(4).toString("hex")}`;
  execFileSync("ip", ["netns", "add", name]);
  execFileSync("ip", ["-n", name, "link", "set", "lo", "up"]);
  return { name, remove: () => execFileSync("ip", ["netns", "del", name]) };
}
