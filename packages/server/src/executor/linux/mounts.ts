/**
 * # mounts
 *
 * What is mounted and which loop devices exist, read from the kernel (`/proc/self/mountinfo`,
 * `/sys/block/loop*`), and the teardown of everything under one directory: unmount in reverse order of
 * mounting (lazily as a last resort), then detach the loop devices whose backing files live there. Used by
 * disk.ts to destroy a sandbox's root after a crash and by image.ts to clean a killed build, and by tests to
 * check for leaks.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { runHostCommand } from "./host-command.ts";

export interface MountEntry {
  id: number;
  parentId: number;
  mountPoint: string;
  fsType: string;
  source: string;
  /** Per-mount options (`rw,noatime`). */
  options: string;
  /** Per-superblock options; for overlay they hold `lowerdir=`, `upperdir=`, `workdir=`. */
  superOptions: string;
}

export interface LoopDevice {
  device: string;
  backingFile: string;
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Every mount of this process's mount namespace, in mount order (parents before children). */
export function readMounts(mountinfo = readFileSync("/proc/self/mountinfo", "utf8")): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of mountinfo.split("\n")) {
    if (!line) continue;
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash < 6) continue;
    entries.push({
      id: Number(fields[0]),
      parentId: Number(fields[1]),
      mountPoint: unescapeMountField(fields[4]),
      options: fields[5],
      fsType: fields[dash + 1],
      source: unescapeMountField(fields[dash + 2] ?? ""),
      superOptions: fields[dash + 3] ?? "",
    });
  }
  return entries;
}

/** Whether `path` is `dir` or inside it (both absolute). */
export function isWithin(path: string, dir: string): boolean {
  const root = resolve(dir);
  const p = resolve(path);
  return p === root || p.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Mounts at or below `dir`, deepest and latest first: the order to unmount them in. */
export function mountsUnder(dir: string): MountEntry[] {
  return readMounts()
    .filter((m) => isWithin(m.mountPoint, dir))
    .reverse();
}

/** Loop devices whose backing file is at or below `dir` (read from sysfs; no tool run). */
export function loopDevicesUnder(dir: string): LoopDevice[] {
  const found: LoopDevice[] = [];
  let names: string[];
  try {
    names = readdirSync("/sys/block").filter((n) => n.startsWith("loop"));
  } catch {
    return found;
  }
  for (const name of names) {
    let backingFile: string;
    try {
      backingFile = readFileSync(join("/sys/block", name, "loop", "backing_file"), "utf8").trim();
    } catch {
      continue; // not bound to a file
    }
    // A backing file deleted while attached reads as "/path (deleted)".
    const path = backingFile.replace(/ \(deleted\)$/, "");
    if (isWithin(path, dir)) found.push({ device: `/dev/${name}`, backingFile: path });
  }
  return found;
}

/**
 * Unmounts everything mounted at or below `dir`, deepest first. A mount that stays busy is detached lazily
 * (`umount -l`): its filesystem goes away once its last user does. Returns the mount points it unmounted.
 */
export async function unmountUnder(dir: string): Promise<string[]> {
  const done: string[] = [];
  // Loop: a lazy unmount of a parent can reveal nothing new, but a mount made meanwhile would be caught.
  for (let round = 0; round < 3; round++) {
    const mounts = mountsUnder(dir);
    if (mounts.length === 0) break;
    for (const mount of mounts) {
      try {
        await runHostCommand("umount", [mount.mountPoint]);
      } catch (error) {
        if (!readMounts().some((m) => m.id === mount.id)) continue; // already gone with its parent
        try {
          await runHostCommand("umount", ["-l", mount.mountPoint]);
        } catch {
          if (readMounts().some((m) => m.id === mount.id)) throw error;
        }
      }
      done.push(mount.mountPoint);
    }
  }
  return done;
}

/** Detaches the loop devices backed by files at or below `dir`. */
export async function detachLoopDevicesUnder(dir: string): Promise<string[]> {
  const detached: string[] = [];
  for (const loop of loopDevicesUnder(dir)) {
    try {
      await runHostCommand("losetup", ["-d", loop.device]);
      detached.push(loop.device);
    } catch (error) {
      // Autoclear devices vanish by themselves once their last mount is gone.
      if (loopDevicesUnder(dir).some((l) => l.device === loop.device)) throw error;
    }
  }
  return detached;
}
