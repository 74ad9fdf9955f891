/**
 * # image
 *
 * The read-only root filesystems sandboxes start from (the overlay's lower dir).
 *
 * - `default`: Debian bookworm built with `debootstrap --variant=minbase` plus what users expect (bash,
 *   coreutils, procps, ca-certificates, curl, git, python3, openssh-server, iproute2, less), from the mirror
 *   in the host's apt sources unless one is given. It lives in `<dataDir>/images/default-<recipe hash>/rootfs`:
 *   the hash covers everything that shapes the image (suite, variant, packages, post-steps, a version number), so
 *   a changed recipe builds a new directory and old ones stay until `removeUnusedImages` finds no sandbox on them.
 * - custom images: `<dataDir>/images/custom/<name>/rootfs`, made by the operator.
 *
 * A build runs in `<images>/.build-default-<hash>/` and is renamed into place only when complete, so a killed
 * build never leaves a directory that looks like an image. Concurrent callers share one build: one promise per
 * process, and a `flock` on `<images>/.default-<hash>.lock` between processes.
 *
 * Post-steps: apt caches and lists, docs (copyright files kept), man and info pages and locales removed;
 * `svc-user` (uid/gid 1500, /home/svc-user, /bin/bash); empty mount points /opt/svc and /run/svc; an sshd drop-in
 * for the SSH feature (host keys are deleted: each sandbox gets its own); a neutral /etc/hostname and /etc/hosts;
 * no /etc/resolv.conf (each sandbox writes its own). `image.json` beside `rootfs` records recipe, mirror, build
 * time and size.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { chmod, mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { acquireFileLock } from "./file-lock.ts";
import { runHostCommand } from "./host-command.ts";
import { readMounts, unmountUnder } from "./mounts.ts";

export interface ImageRecipe {
  /** Bumped when the build code changes in a way the other fields do not show. */
  version: number;
  suite: string;
  variant: string;
  packages: readonly string[];
  user: { name: string; uid: number; gid: number; home: string; shell: string };
  /** Files written into the image after the packages, path → content. */
  files: Readonly<Record<string, string>>;
  /** Directories created (mount points), path → mode. */
  dirs: Readonly<Record<string, number>>;
}

const SSHD_DROP_IN = `# svc sandbox defaults (read before the Debian defaults, so these win).
# Host keys are not part of the shared image: each sandbox generates its own at first use.
HostKey /etc/ssh/ssh_host_ed25519_key
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
PrintMotd no
X11Forwarding no
AllowTcpForwarding yes
AuthorizedKeysFile .ssh/authorized_keys /etc/ssh/authorized_keys.d/%u
`;

export const DEFAULT_IMAGE_RECIPE: ImageRecipe = {
  version: 2,
  suite: "bookworm",
  variant: "minbase",
  packages: [
    "bash",
    "ca-certificates",
    "coreutils",
    "curl",
    "git",
    "iproute2",
    "less",
    "openssh-server",
    "procps",
    "python3",
  ],
  user: { name: "svc-user", uid: 1500, gid: 1500, home: "/home/svc-user", shell: "/bin/bash" },
  files: {
    "/etc/hostname": "sandbox\n",
    "/etc/hosts":
      "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n",
    "/etc/ssh/sshd_config.d/svc.conf": SSHD_DROP_IN,
    "/etc/machine-id": "",
  },
  dirs: {
    "/opt/svc": 0o755,
    "/opt/svc/node": 0o755,
    "/opt/svc/app": 0o755,
    "/run/svc": 0o700,
    "/run/sshd": 0o755,
    "/etc/ssh/authorized_keys.d": 0o755,
  },
};

/** Thrown by `resolveImage` for a name that is neither `default` nor an existing custom image. */
export class ImageNotFoundError extends Error {
  readonly imageName: string;
  constructor(imageName: string) {
    super(`image not found: ${imageName}`);
    this.name = "ImageNotFoundError";
    this.imageName = imageName;
  }
}

export interface ImageBuildOptions {
  /** Debian mirror URL; default: the host's apt sources, else https://deb.debian.org/debian. */
  mirror?: string;
  /** Progress of a build, one short line at a time (debootstrap's stages, not its per-package lines). */
  onProgress?: (line: string) => void;
  recipe?: ImageRecipe;
}

export interface ImageInfo {
  name: string;
  hash: string;
  recipe: ImageRecipe;
  mirror: string;
  builtAt: string;
  buildMs: number;
  sizeBytes: number;
}

/** The first 16 hex digits of the SHA-256 of the recipe: it names the image directory. */
export function imageRecipeHash(recipe: ImageRecipe = DEFAULT_IMAGE_RECIPE): string {
  const canonical = JSON.stringify({ ...recipe, packages: [...recipe.packages].sort() }, (_key, value) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
  return createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

export function imagesDir(dataDir: string): string {
  return join(resolve(dataDir), "images");
}

/** `<dataDir>/images/default-<hash>`: the image directory (holding `rootfs` and `image.json`). */
export function defaultImageDir(dataDir: string, recipe: ImageRecipe = DEFAULT_IMAGE_RECIPE): string {
  return join(imagesDir(dataDir), `default-${imageRecipeHash(recipe)}`);
}

/**
 * The Debian mirror of the host's apt sources (deb822 `debian.sources` first, then `sources.list`): the first
 * entry that is not a security or updates suite.
 */
export function hostDebianMirror(etcApt = "/etc/apt"): string | undefined {
  const candidates: string[] = [];
  try {
    const text = readFileSync(join(etcApt, "sources.list.d", "debian.sources"), "utf8");
    for (const stanza of text.split(/\n\s*\n/)) {
      const field = (name: string) =>
        new RegExp(`^${name}:\\s*(.+)$`, "mi").exec(stanza)?.[1].trim().split(/\s+/) ?? [];
      if (!field("Types").includes("deb")) continue;
      if (field("Suites").every((s) => /-(security|updates|backports)$/.test(s))) continue;
      candidates.push(...field("URIs"));
    }
  } catch {}
  try {
    const text = readFileSync(join(etcApt, "sources.list"), "utf8");
    for (const line of text.split("\n")) {
      const match = /^\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)/.exec(line);
      if (match && !/-(security|updates|backports)$/.test(match[2]) && !match[2].includes("/")) {
        candidates.push(match[1]);
      }
    }
  } catch {}
  return candidates.find((uri) => /^(https?|file):/.test(uri));
}

const builds = new Map<string, Promise<string>>();

/**
 * The default image's rootfs, built first when missing (a minute or two; `onProgress` shows where it is).
 * Concurrent calls, in this process or another on the same data dir, share one build.
 */
export function ensureDefaultImage(dataDir: string, options: ImageBuildOptions = {}): Promise<string> {
  const recipe = options.recipe ?? DEFAULT_IMAGE_RECIPE;
  const dir = defaultImageDir(dataDir, recipe);
  const rootfs = join(dir, "rootfs");
  if (isCompleteImage(dir)) return Promise.resolve(rootfs);
  let build = builds.get(dir);
  if (!build) {
    build = buildLocked(dataDir, recipe, options).finally(() => builds.delete(dir));
    builds.set(dir, build);
  }
  return build;
}

/**
 * The rootfs of image `name`: `default` (built when missing) or a custom image in
 * `<dataDir>/images/custom/<name>/rootfs`. Throws ImageNotFoundError for anything else.
 */
export async function resolveImage(
  dataDir: string,
  name: string,
  options: ImageBuildOptions = {},
): Promise<string> {
  if (name === "default") return ensureDefaultImage(dataDir, options);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) throw new ImageNotFoundError(name);
  const rootfs = join(imagesDir(dataDir), "custom", name, "rootfs");
  try {
    if (statSync(rootfs).isDirectory()) return rootfs;
  } catch {}
  throw new ImageNotFoundError(name);
}

/** Reads `image.json` of an image directory; undefined for a custom image without one. */
export function readImageInfo(dir: string): ImageInfo | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "image.json"), "utf8")) as ImageInfo;
  } catch {
    return undefined;
  }
}

function isCompleteImage(dir: string): boolean {
  return existsSync(join(dir, "image.json")) && existsSync(join(dir, "rootfs", "bin"));
}

function lockPath(dataDir: string, hash: string): string {
  return join(imagesDir(dataDir), `.default-${hash}.lock`);
}

async function buildLocked(
  dataDir: string,
  recipe: ImageRecipe,
  options: ImageBuildOptions,
): Promise<string> {
  const hash = imageRecipeHash(recipe);
  const dir = defaultImageDir(dataDir, recipe);
  const progress = options.onProgress ?? (() => {});
  let lock = await acquireFileLock(lockPath(dataDir, hash), { wait: false });
  if (!lock) {
    progress(`waiting for another process building image default-${hash}`);
    lock = await acquireFileLock(lockPath(dataDir, hash), { wait: true });
  }
  try {
    if (isCompleteImage(dir)) return join(dir, "rootfs");
    await buildImage(
      dataDir,
      recipe,
      hash,
      options.mirror ?? hostDebianMirror() ?? "https://deb.debian.org/debian",
      progress,
    );
    return join(dir, "rootfs");
  } finally {
    await lock?.release();
  }
}

/** Removes a directory tree that may hold mounts (a killed debootstrap leaves /proc and /sys mounted in it). */
async function removeTree(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  await unmountUnder(dir);
  // --one-file-system: never follow into a mount that could not be removed (say, a bind of the host's /dev).
  await runHostCommand("rm", ["-rf", "--one-file-system", "--", dir]);
}

const PER_PACKAGE_LINE =
  /^I: (Retrieving|Validating|Extracting|Unpacking|Configuring) ([a-z0-9][a-z0-9+.:-]+)(?:\.\.\.| \S+)$/;
const PHASE: Record<string, string> = {
  Retrieving: "downloading",
  Validating: "downloading",
  Extracting: "extracting",
  Unpacking: "unpacking",
  Configuring: "configuring",
};

/**
 * Passes debootstrap's stage lines through and folds its per-package lines (hundreds per phase) into a count
 * per phase: one line when a phase ends, and one every 5 s while it runs.
 */
export function debootstrapProgress(progress: (line: string) => void): (line: string) => void {
  let phase = "";
  let count = 0;
  let lastShown = 0;
  const endPhase = () => {
    if (phase) progress(`I: ${phase} done (${count} packages)`);
    phase = "";
    count = 0;
  };
  return (line) => {
    const perPackage = PER_PACKAGE_LINE.exec(line);
    if (
      !perPackage ||
      perPackage[2] === "required" ||
      perPackage[2] === "the" ||
      perPackage[2] === "Packages"
    ) {
      if (!/^[IWE]: /.test(line)) return;
      endPhase();
      progress(line);
      return;
    }
    const next = PHASE[perPackage[1]];
    if (next !== phase) {
      endPhase();
      phase = next;
      lastShown = Date.now();
    }
    // Retrieving and Validating alternate per package: count each package once.
    if (perPackage[1] !== "Validating") count++;
    if (Date.now() - lastShown >= 5000) {
      lastShown = Date.now();
      progress(`I: ${phase}… ${count} packages (${perPackage[2]})`);
    }
  };
}

async function buildImage(
  dataDir: string,
  recipe: ImageRecipe,
  hash: string,
  mirror: string,
  progress: (line: string) => void,
): Promise<void> {
  const started = Date.now();
  const images = imagesDir(dataDir);
  const finalDir = defaultImageDir(dataDir, recipe);
  const buildDir = join(images, `.build-default-${hash}`);
  const rootfs = join(buildDir, "rootfs");
  await removeTree(buildDir); // a build killed earlier: we hold the lock, so nobody else uses it
  await mkdir(buildDir, { recursive: true, mode: 0o755 });
  progress(
    `building image default-${hash}: debootstrap --variant=${recipe.variant} ${recipe.suite} from ${mirror}`,
  );
  try {
    await runHostCommand(
      "debootstrap",
      [
        `--variant=${recipe.variant}`,
        `--include=${recipe.packages.join(",")}`,
        "--components=main",
        recipe.suite,
        rootfs,
        mirror,
      ],
      { onLine: debootstrapProgress(progress), env: { DEBIAN_FRONTEND: "noninteractive" } },
    );
    progress("I: post-steps: user, config files, cleanup");
    await postSteps(rootfs, recipe);
    const sizeBytes = Number((await runHostCommand("du", ["-sx", "--block-size=1", rootfs])).split(/\s/)[0]);
    const info: ImageInfo = {
      name: "default",
      hash,
      recipe,
      mirror,
      builtAt: new Date().toISOString(),
      buildMs: Date.now() - started,
      sizeBytes,
    };
    await writeFile(join(buildDir, "image.json"), `${JSON.stringify(info, null, 2)}\n`);
    await rm(finalDir, { recursive: true, force: true }); // only ever an incomplete leftover: complete ones return early
    await rename(buildDir, finalDir);
    progress(
      `image default-${hash} ready: ${(sizeBytes / 1e6).toFixed(0)} MB in ${(info.buildMs / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    await removeTree(buildDir).catch(() => {});
    throw error;
  }
}

async function removeContents(dir: string, keep: (name: string) => boolean = () => false): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names.filter((n) => !keep(n)).map((n) => rm(join(dir, n), { recursive: true, force: true })),
  );
}

async function postSteps(rootfs: string, recipe: ImageRecipe): Promise<void> {
  const at = (path: string) => join(rootfs, path);
  // Debootstrap's own mounts must be gone before anything is removed.
  if (readMounts().some((m) => m.mountPoint.startsWith(`${rootfs}/`))) await unmountUnder(rootfs);

  const { name, uid, gid, home, shell } = recipe.user;
  await runHostCommand("chroot", [rootfs, "groupadd", "--gid", String(gid), name]);
  await runHostCommand("chroot", [
    rootfs,
    ...["useradd", "--uid", String(uid), "--gid", String(gid), "--create-home", "--home-dir", home],
    ...["--shell", shell, name],
  ]);

  // Caches, indexes, docs (copyright files stay), man/info pages, locales, logs; the host's resolv.conf.
  await removeContents(at("var/cache/apt"), (n) => n === "archives");
  await removeContents(at("var/cache/apt/archives"), (n) => n === "partial" || n === "lock");
  await removeContents(at("var/lib/apt/lists"), (n) => n === "partial" || n === "lock");
  for (const pkg of await readdir(at("usr/share/doc")).catch(() => [] as string[])) {
    const pkgDir = at(`usr/share/doc/${pkg}`);
    if (statSync(pkgDir).isDirectory()) await removeContents(pkgDir, (n) => n === "copyright");
  }
  await removeContents(at("usr/share/man"));
  await removeContents(at("usr/share/info"));
  await removeContents(at("usr/share/locale"), (n) => n === "locale.alias");
  await removeContents(at("var/log"), (n) => !n.endsWith(".log"));
  await removeContents(at("var/log/apt"));
  await removeContents(at("var/cache/debconf"), (n) => !n.endsWith("-old"));
  await rm(at("var/lib/dpkg/status-old"), { force: true });
  await rm(at("etc/resolv.conf"), { force: true });
  await rm(at("run/adduser"), { force: true });
  for (const n of await readdir(at("etc/ssh"))) {
    if (n.startsWith("ssh_host_")) await rm(at(`etc/ssh/${n}`), { force: true });
  }

  for (const [path, mode] of Object.entries(recipe.dirs)) {
    await mkdir(at(path), { recursive: true });
    await chmod(at(path), mode);
  }
  for (const [path, content] of Object.entries(recipe.files)) {
    await writeFile(at(path), content, { mode: 0o644 });
    await chmod(at(path), 0o644);
  }
}

export interface RemovedImages {
  removed: string[];
  kept: string[];
}

/**
 * Removes default images of older recipes that no sandbox uses: `inUse` lists the rootfs (or image) paths of
 * live sandboxes; an image mounted as an overlay lower dir on this host is kept too, whatever `inUse` says.
 * Also removes builds left by killed processes (only when their lock is free). The current recipe's image and
 * custom images are never removed.
 */
export async function removeUnusedImages(
  dataDir: string,
  inUse: Iterable<string>,
  recipe: ImageRecipe = DEFAULT_IMAGE_RECIPE,
): Promise<RemovedImages> {
  const images = imagesDir(dataDir);
  const current = defaultImageDir(dataDir, recipe);
  const used = new Set([...inUse].map((p) => resolve(p).replace(/\/rootfs$/, "")));
  const lowerDirs = new Set<string>();
  for (const mount of readMounts()) {
    if (mount.fsType !== "overlay") continue;
    const lower = /(?:^|,)lowerdir=([^,]*)/.exec(mount.superOptions)?.[1] ?? "";
    for (const dir of lower.split(":")) if (dir) lowerDirs.add(resolve(dir).replace(/\/rootfs$/, ""));
  }
  const result: RemovedImages = { removed: [], kept: [] };
  let names: string[];
  try {
    names = await readdir(images);
  } catch {
    return result;
  }
  for (const name of names) {
    const dir = join(images, name);
    const build = /^\.build-default-([0-9a-f]+)$/.exec(name);
    if (build) {
      const lock = await acquireFileLock(lockPath(dataDir, build[1]), { wait: false });
      if (!lock) continue; // a build in progress
      try {
        await removeTree(dir);
        result.removed.push(dir);
      } finally {
        await lock.release();
      }
      continue;
    }
    if (/^\.trash-/.test(name)) {
      await removeTree(dir);
      result.removed.push(dir);
      continue;
    }
    if (!/^default-[0-9a-f]+$/.test(name)) continue;
    if (dir === current || used.has(dir) || lowerDirs.has(dir)) {
      result.kept.push(dir);
      continue;
    }
    // Renamed first, so a half-removed image is never taken for an image.
    const trash = join(images, `.trash-${name}-${process.pid}-${Date.now()}`);
    await rename(dir, trash);
    await removeTree(trash);
    await rm(lockPath(dataDir, name.slice("default-".length)), { force: true });
    result.removed.push(dir);
  }
  return result;
}
