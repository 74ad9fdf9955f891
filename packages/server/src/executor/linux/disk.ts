/**
 * # disk
 *
 * A sandbox's root filesystem: an overlay whose lower dir is the (shared, read-only) image rootfs and whose
 * upper and work dirs live on a sparse ext4 image of `disk_mb`, so the sandbox's disk is really limited
 * (writes past it give ENOSPC, `df /` inside shows the size) and freed space goes back to the host (`discard`).
 *
 * Layout of `<sandboxDir>`:
 * ```
 * disk.img        sparse ext4 image (truncate + mkfs.ext4 -O ^has_journal -m 0)
 * fs/             disk.img mounted with loop,noatime,discard
 *   upper/ work/  the overlay's upper and work dirs
 * root/           the overlay: lowerdir=<image rootfs>,upperdir=fs/upper,workdir=fs/work
 * ```
 * Per-sandbox files (/etc/hostname, /etc/hosts, /etc/resolv.conf, …) are written through the mounted overlay
 * before start, so they land in the upper dir with the lower dir's directory metadata kept.
 *
 * `destroyRootfs` needs only the sandbox dir, so it also finishes a sandbox half made or half destroyed before a
 * crash: it finds the mounts under the dir in /proc/self/mountinfo, unmounts them deepest first (lazily as a last
 * resort), detaches the loop devices backed by files under it, and removes the dir.
 */
import { chmod, lstat, mkdir, open, rm, stat, truncate, writeFile } from "node:fs/promises";
import { dirname, join, normalize, resolve } from "node:path";
import { runHostCommand } from "./host-command.ts";
import {
  detachLoopDevicesUnder,
  type LoopDevice,
  loopDevicesUnder,
  type MountEntry,
  mountsUnder,
  unmountUnder,
} from "./mounts.ts";
import type { StartTimeline } from "./start-timeline.ts";

/** Content of a file written into the sandbox; a string or bytes is a root-owned 0644 file. */
export type SandboxFile =
  | string
  | Uint8Array
  | { content: string | Uint8Array; mode?: number; uid?: number; gid?: number };

export interface CreateRootfsOptions {
  /** The sandbox's own directory on the host (created if missing). */
  sandboxDir: string;
  /** The image's rootfs (the overlay's lower dir). */
  imageRootfs: string;
  /** Size of the sandbox's disk in MiB. */
  diskMb: number;
  /** Files to write, by absolute path inside the sandbox. */
  files?: Readonly<Record<string, SandboxFile>>;
  /**
   * A disk image to start from (a snapshot's): copied (sparse) instead of a new file system being made; grown to
   * diskMb when that is larger, never shrunk.
   */
  fromDisk?: string;
  /** Records each step (disk.mkfs, disk.mount, …) when given. */
  timeline?: StartTimeline;
}

export interface RootfsPaths {
  sandboxDir: string;
  diskImage: string;
  /** Where the ext4 image is mounted. */
  fsDir: string;
  upperDir: string;
  workDir: string;
  /** The sandbox's root: the overlay mount. */
  rootDir: string;
}

/**
 * Makes a root disk whose overlay upper layer holds a tar's tree (plain or gzip): a template's, laid over the
 * image. tar runs as root on a fresh file system of its own (owners become root, GNU tar keeps members inside
 * and makes symlinks last); device nodes, FIFOs and sockets are then removed.
 */
export async function buildTreeDisk(options: {
  diskImage: string;
  tarFile: string;
  sizeMb: number;
}): Promise<void> {
  const mountPoint = `${options.diskImage}.mnt`;
  const disk = await open(options.diskImage, "wx", 0o600);
  try {
    await disk.truncate(options.sizeMb * 1024 * 1024);
  } finally {
    await disk.close();
  }
  let mounted = false;
  try {
    await runHostCommand("mkfs.ext4", [
      ...["-q", "-F", "-O", "^has_journal", "-E", "lazy_itable_init=1,nodiscard", "-m", "0"],
      options.diskImage,
    ]);
    await mkdir(mountPoint, { mode: 0o700 });
    await runHostCommand("mount", ["-o", "loop,noatime", options.diskImage, mountPoint]);
    mounted = true;
    const upper = join(mountPoint, "upper");
    await mkdir(upper, { mode: 0o755 });
    await mkdir(join(mountPoint, "work"), { mode: 0o700 });
    const head = await open(options.tarFile, "r");
    const magic = Buffer.alloc(2);
    await head.read(magic, 0, 2, 0);
    await head.close();
    const gzip = magic[0] === 0x1f && magic[1] === 0x8b;
    await runHostCommand("tar", [
      "-x",
      ...(gzip ? ["-z"] : []),
      "--no-same-owner",
      "-f",
      options.tarFile,
      "-C",
      upper,
    ]);
    // A tar of `.` carries its top directory's mode (a temporary directory's 0700, say): the root stays 0755.
    await chmod(upper, 0o755);
    await runHostCommand("find", [
      upper,
      "(",
      "-type",
      "b",
      "-o",
      "-type",
      "c",
      "-o",
      "-type",
      "p",
      "-o",
      "-type",
      "s",
      ")",
      "-delete",
    ]);
  } catch (error) {
    if (mounted) await runHostCommand("umount", [mountPoint]).catch(() => undefined);
    await rm(mountPoint, { recursive: true, force: true });
    await rm(options.diskImage, { force: true });
    throw error;
  }
  await runHostCommand("umount", [mountPoint]);
  await rm(mountPoint, { recursive: true, force: true });
}

/** A directory a snapshot's disk already has is used as it is. */
function ignoreExisting(error: NodeJS.ErrnoException): void {
  if (error.code !== "EEXIST") throw error;
}

export function rootfsPaths(sandboxDir: string): RootfsPaths {
  const dir = resolve(sandboxDir);
  return {
    sandboxDir: dir,
    diskImage: join(dir, "disk.img"),
    fsDir: join(dir, "fs"),
    upperDir: join(dir, "fs", "upper"),
    workDir: join(dir, "fs", "work"),
    rootDir: join(dir, "root"),
  };
}

/** Creates the disk image, mounts it and the overlay, and writes the sandbox's files. Undoes itself on failure. */
export async function createRootfs(options: CreateRootfsOptions): Promise<RootfsPaths> {
  const paths = rootfsPaths(options.sandboxDir);
  if (!Number.isInteger(options.diskMb) || options.diskMb < 16) {
    throw new RangeError(`diskMb must be an integer ≥ 16, got ${options.diskMb}`);
  }
  const lower = resolve(options.imageRootfs);
  if (/[,:\\\s]/.test(lower))
    throw new Error(`image rootfs path not usable as an overlay lower dir: ${lower}`);
  await mkdir(paths.sandboxDir, { recursive: true, mode: 0o700 });
  const step = <T>(name: string, action: () => Promise<T>): Promise<T> =>
    options.timeline ? options.timeline.time(name, action) : action();
  try {
    const wanted = options.diskMb * 1024 * 1024;
    if (options.fromDisk) {
      const from = options.fromDisk;
      await step("disk.copy", () =>
        runHostCommand("cp", ["--sparse=always", "--reflink=auto", from, paths.diskImage]),
      );
      if ((await stat(paths.diskImage)).size < wanted) {
        // A snapshot is taken from a live (frozen) file system: checked before it is grown.
        await runHostCommand("e2fsck", ["-f", "-p", paths.diskImage]).catch((error) => {
          // Exit 1: errors corrected; anything else is a damaged snapshot.
          if ((error as { exitCode?: number }).exitCode !== 1) throw error;
        });
        await truncate(paths.diskImage, wanted);
        await runHostCommand("resize2fs", ["-f", paths.diskImage]);
      }
    } else {
      const disk = await open(paths.diskImage, "wx", 0o600);
      try {
        await disk.truncate(wanted);
      } finally {
        await disk.close();
      }
      await step("disk.mkfs", () =>
        runHostCommand("mkfs.ext4", [
          ...["-q", "-F", "-O", "^has_journal", "-E", "lazy_itable_init=1,nodiscard", "-m", "0"],
          paths.diskImage,
        ]),
      );
    }
    await mkdir(paths.fsDir, { mode: 0o700 });
    await mkdir(paths.rootDir, { mode: 0o755 });
    await step("disk.mount-loop", () =>
      runHostCommand("mount", ["-o", "loop,noatime,discard", paths.diskImage, paths.fsDir]),
    );
    await mkdir(paths.upperDir, { mode: 0o755 }).catch(ignoreExisting);
    await mkdir(paths.workDir, { mode: 0o700 }).catch(ignoreExisting);
    await step("disk.mount-overlay", () =>
      runHostCommand("mount", [
        ...["-t", "overlay", "overlay", "-o"],
        `lowerdir=${lower},upperdir=${paths.upperDir},workdir=${paths.workDir}`,
        paths.rootDir,
      ]),
    );
    await step("disk.files", async () => {
      for (const [path, file] of Object.entries(options.files ?? {}))
        await writeSandboxFile(paths.rootDir, path, file);
    });
    return paths;
  } catch (error) {
    await unmountUnder(paths.sandboxDir).catch(() => {});
    await detachLoopDevicesUnder(paths.sandboxDir).catch(() => {});
    await rm(paths.diskImage, { force: true }).catch(() => {});
    await rm(paths.fsDir, { recursive: true, force: true }).catch(() => {});
    await rm(paths.rootDir, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
}

/**
 * Writes one file below `rootDir` at the sandbox path `path`. No component of the path may be a symlink (an image
 * could otherwise point a write at a host file); a file already there is replaced.
 */
export async function writeSandboxFile(rootDir: string, path: string, file: SandboxFile): Promise<void> {
  const inside = normalize(path);
  if (!inside.startsWith("/") || inside === "/" || inside.split("/").includes("..")) {
    throw new Error(`sandbox file path must be absolute: ${path}`);
  }
  const target = join(rootDir, inside);
  let dir = rootDir;
  for (const part of dirname(inside).split("/").filter(Boolean)) {
    dir = join(dir, part);
    const stat = await lstat(dir).catch(() => undefined);
    if (!stat) await mkdir(dir, { mode: 0o755 });
    else if (!stat.isDirectory())
      throw new Error(`not a directory in the sandbox: ${dir.slice(rootDir.length)}`);
  }
  const spec = typeof file === "string" || file instanceof Uint8Array ? { content: file } : file;
  await rm(target, { force: true }); // unlinks a symlink rather than following it
  await writeFile(target, spec.content, { mode: spec.mode ?? 0o644, flag: "wx" });
  const handle = await open(target, "r");
  try {
    await handle.chmod(spec.mode ?? 0o644);
    if (spec.uid !== undefined || spec.gid !== undefined) await handle.chown(spec.uid ?? 0, spec.gid ?? 0);
  } finally {
    await handle.close();
  }
}

/**
 * Removes everything createRootfs made, and the sandbox dir itself, from the sandbox dir alone. Idempotent; safe
 * after a crash at any point. Throws only when something could not be removed.
 */
export async function destroyRootfs(sandboxDir: string): Promise<void> {
  const dir = resolve(sandboxDir);
  await unmountUnder(dir);
  await detachLoopDevicesUnder(dir);
  const left = mountsUnder(dir);
  if (left.length) throw new Error(`still mounted under ${dir}: ${left.map((m) => m.mountPoint).join(", ")}`);
  // --one-file-system: a mount that appeared meanwhile is never descended into.
  await runHostCommand("rm", ["-rf", "--one-file-system", "--", dir]);
}

export interface Leftovers {
  mounts: MountEntry[];
  loopDevices: LoopDevice[];
}

/** Mounts and loop devices at or below `rootDir` (e.g. the sandboxes dir), for leak checks. */
export function listLeftovers(rootDir: string): Leftovers {
  return { mounts: mountsUnder(rootDir), loopDevices: loopDevicesUnder(rootDir) };
}
