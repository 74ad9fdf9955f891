/**
 * # fs-mounts
 *
 * Named file systems mounted into a running sandbox, without running anything of the sandbox's as host root.
 *
 * At start, `<sandboxDir>/mounts` (the staging directory) is made a shared mount of its own and bound into the
 * sandbox at STAGING_IN_SANDBOX; bwrap makes the sandbox's copy a slave, so a mount made later under the host's
 * staging directory appears inside the sandbox too. To mount a tree at a guest path:
 * 1. the host binds the tree at `<staging>/<slot>` (it appears at `/run/svc-mounts/<slot>` inside);
 * 2. the host's own `mount -N <sandbox mount namespace>` binds that to the guest path (creating it), then
 *    remounts it `nosuid,nodev` and `ro` when asked: util-linux enters the namespace only for the mount(2) and
 *    mkdir calls, so paths (symlinks included) resolve inside the sandbox's root and no sandbox binary runs;
 * 3. the sandbox's mount table must then show a mount at exactly the guest path (a symlink that redirected it
 *    elsewhere undoes it).
 * The sandbox has no CAP_SYS_ADMIN, so nothing inside can remount a read-only mount writable (EROFS for root).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { runHostCommand } from "./host-command.ts";
import { isWithin, readMounts } from "./mounts.ts";

/** Where the staging directory appears inside a sandbox (0700: only the sandbox's root sees it). */
export const STAGING_IN_SANDBOX = "/run/svc-mounts";

/** Guest paths a file system may not be mounted on or under: the daemon's own files and the kernel's. */
export const RESERVED_GUEST_PATHS = ["/opt/svc", "/run/svc", STAGING_IN_SANDBOX, "/proc", "/dev", "/sys"];

export function stagingDir(sandboxDir: string): string {
  return join(sandboxDir, "mounts");
}

/** Makes the sandbox's staging directory a shared mount of its own (before the sandbox is launched). */
export async function prepareStaging(sandboxDir: string): Promise<string> {
  const dir = stagingDir(sandboxDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // One mount(8) call: util-linux applies the propagation changes in order after the bind (private leaves the
  // parent's peer group, shared starts a new one).
  await runHostCommand("mount", ["--bind", "--make-private", "--make-shared", dir, dir]);
  return dir;
}

/** The sandbox's first process inside its namespaces: the child of the outer bwrap. */
export async function sandboxInitPid(outerPid: number): Promise<number> {
  const children = (await readFile(`/proc/${outerPid}/task/${outerPid}/children`, "utf8"))
    .trim()
    .split(/\s+/);
  const pid = Number(children[0]);
  if (!Number.isInteger(pid) || pid <= 0)
    throw new Error(`the sandbox (pid ${outerPid}) has no init process`);
  return pid;
}

/** The slot of a guest path in the staging directory: the same path, the same slot. */
function slotOf(guestPath: string): string {
  return createHash("sha256").update(guestPath).digest("hex").slice(0, 16);
}

/** Mount points of the sandbox's mount namespace, as the sandbox sees them. */
export function guestMountPoints(initPid: number): string[] {
  return readMounts(readFileSync(`/proc/${initPid}/mountinfo`, "utf8")).map((entry) => entry.mountPoint);
}

export interface GuestMount {
  /** Host directory: a file system's head or one of its snapshots. */
  source: string;
  /** Absolute, normalized guest path. */
  path: string;
  readOnly: boolean;
}

/** Mounts a host tree into the sandbox at a guest path; a path that is already a mount point is left as it is. */
export async function mountIntoSandbox(options: {
  sandboxDir: string;
  outerPid: number;
  mount: GuestMount;
}): Promise<void> {
  const { mount } = options;
  if (RESERVED_GUEST_PATHS.some((reserved) => isWithin(mount.path, reserved))) {
    throw new Error(`${mount.path} is reserved inside the sandbox`);
  }
  const init = await sandboxInitPid(options.outerPid);
  const before = new Set(guestMountPoints(init));
  if (before.has(mount.path)) return;
  const slot = slotOf(mount.path);
  const staged = join(stagingDir(options.sandboxDir), slot);
  await mkdir(staged, { recursive: true, mode: 0o700 });
  const hostMounts = readMounts().map((entry) => entry.mountPoint);
  if (!hostMounts.includes(staged)) await runHostCommand("mount", ["--bind", mount.source, staged]);
  const ns = `/proc/${init}/ns/mnt`;
  const inside = `${STAGING_IN_SANDBOX}/${slot}`;
  await runHostCommand("mount", ["-N", ns, "-o", "X-mount.mkdir=0755,bind", inside, mount.path]);
  try {
    const added = guestMountPoints(init).filter((point) => !before.has(point) && point !== inside);
    if (!added.includes(mount.path)) {
      for (const point of added.reverse()) await runHostCommand("umount", ["-N", ns, point]);
      throw new Error(`${mount.path} resolves elsewhere inside the sandbox (a symbolic link)`);
    }
    const flags = `remount,bind,nosuid,nodev${mount.readOnly ? ",ro" : ""}`;
    await runHostCommand("mount", ["-N", ns, "-o", flags, mount.path]);
  } catch (error) {
    await unmountFromSandbox({ ...options, path: mount.path }).catch(() => undefined);
    throw error;
  }
}

/** Unmounts a guest path (and its staging bind); a path that is not mounted is fine. */
export async function unmountFromSandbox(options: {
  sandboxDir: string;
  outerPid: number;
  path: string;
}): Promise<void> {
  const init = await sandboxInitPid(options.outerPid).catch(() => null);
  if (init !== null) {
    const points = guestMountPoints(init);
    if (points.includes(options.path))
      await runHostCommand("umount", ["-N", `/proc/${init}/ns/mnt`, options.path]);
  }
  const staged = join(stagingDir(options.sandboxDir), slotOf(options.path));
  if (readMounts().some((entry) => entry.mountPoint === staged)) await runHostCommand("umount", [staged]);
  await rmdir(staged).catch(() => undefined);
}
