import type { Stats } from "node:fs";
import { lstat, readlink, stat } from "node:fs/promises";
import { posix } from "node:path";
import { type FileAccess, SEARCH } from "./user-access.ts";

/** Linux's limit of symbolic links followed while resolving one path (MAXSYMLINKS). */
const MAX_SYMLINKS = 40;

export interface ResolvedPath {
  /** Symlink-free absolute path of the target. */
  path: string;
  /** Symlink-free absolute path of the deepest existing directory on the way: the target's directory. */
  parent: string;
  parentStat: Stats;
  /** The target's last component; empty for `/`. */
  name: string;
  /** lstat of the target; undefined when it does not exist. */
  stat: Stats | undefined;
  /** Directories between `parent` and the target that do not exist yet (only with `allowMissingParents`). */
  missingDirs: string[];
}

export interface WalkOptions {
  /** Follow a symlink in the last component (GET, PUT, list) or keep it (DELETE acts on the link itself). */
  followLast: boolean;
  /** Missing directories on the way are reported in `missingDirs` instead of failing ENOENT (PUT). */
  allowMissingParents?: boolean;
}

function errno(code: "ENOENT" | "ENOTDIR" | "ELOOP", path: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`${code}: ${path}`);
  error.code = code;
  error.path = path;
  return error;
}

async function directoryItself(dir: string, dirStat: Stats): Promise<ResolvedPath> {
  const parent = posix.dirname(dir);
  return {
    path: dir,
    parent,
    parentStat: parent === dir ? dirStat : await stat(parent),
    name: dir === "/" ? "" : posix.basename(dir),
    stat: dirStat,
    missingDirs: [],
  };
}

const components = (path: string) => path.split("/").filter((part) => part !== "" && part !== ".");

/**
 * Resolves an absolute path one component at a time, the way the kernel does, checking at each directory that
 * the user may search it and following symbolic links (their targets may use `..`; the request path may not).
 * Fails like the kernel: ENOENT, ENOTDIR, ELOOP, or PERMISSION_DENIED when a directory is not searchable.
 */
export async function walkPath(
  absolute: string,
  access: FileAccess,
  options: WalkOptions,
): Promise<ResolvedPath> {
  const root = await stat("/");
  let dir = "/";
  let dirStat = root;
  const pending = components(absolute);
  if (pending.length === 0) return directoryItself(dir, dirStat);
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift() as string;
    access.require(dirStat, SEARCH, dir);
    const last = pending.length === 0;
    if (name === "..") {
      dir = posix.dirname(dir);
      dirStat = await stat(dir);
      // A symlink target ending in `..` names a directory: that directory is the target.
      if (last) return directoryItself(dir, dirStat);
      continue;
    }
    const next = posix.join(dir, name);
    let entry: Stats;
    try {
      entry = await lstat(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      if (last)
        return { path: next, parent: dir, parentStat: dirStat, name, stat: undefined, missingDirs: [] };
      const missingDirs = [name, ...pending.slice(0, -1)];
      if (!options.allowMissingParents || missingDirs.includes("..")) throw errno("ENOENT", next);
      const target = pending[pending.length - 1];
      return {
        path: posix.join(dir, ...missingDirs, target),
        parent: dir,
        parentStat: dirStat,
        name: target,
        stat: undefined,
        missingDirs,
      };
    }
    if (entry.isSymbolicLink() && (!last || options.followLast)) {
      if (++links > MAX_SYMLINKS) throw errno("ELOOP", next);
      const target = await readlink(next);
      if (target.startsWith("/")) {
        dir = "/";
        dirStat = root;
      }
      pending.unshift(...components(target));
      // A link to `/` or `.` names the directory the walk stands in.
      if (pending.length === 0) return directoryItself(dir, dirStat);
      continue;
    }
    if (last) return { path: next, parent: dir, parentStat: dirStat, name, stat: entry, missingDirs: [] };
    if (!entry.isDirectory()) throw errno("ENOTDIR", next);
    dir = next;
    dirStat = entry;
  }
  // Unreachable: the loop returns on its last component.
  throw errno("ENOENT", absolute);
}
