import type { Stats } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { posix } from "node:path";
import { ServiceError } from "@svc/contract/errors";
import type { DirectoryListing } from "@svc/contract/runtime";
import { fileError } from "./file-errors.ts";
import { walkPath } from "./path-walk.ts";
import { toSandboxPath } from "./sandbox-path.ts";
import { FileAccess, type FileUser, READ, SEARCH } from "./user-access.ts";

/** How many entries are stat'ed at once. */
const STAT_BATCH = 64;

/** A symlink is described by what it points to; a dangling or looping one by the link itself. */
async function describe(path: string): Promise<Stats> {
  const entry = await lstat(path);
  if (!entry.isSymbolicLink()) return entry;
  return stat(path).catch(() => entry);
}

/**
 * Lists a directory as the default user (who needs read and search permission on it), sorted by name.
 * `path` in the answer is the absolute path the request named. A symlink to a directory lists as a
 * directory (`is_dir` true) and can itself be listed; a dangling link lists as a file of the link's own size.
 * An entry removed while listing is left out.
 */
export async function listSandboxDirectory(requested: string, user: FileUser): Promise<DirectoryListing> {
  const absolute = toSandboxPath(requested, user.home);
  try {
    const access = await FileAccess.of(user);
    const target = await walkPath(absolute, access, { followLast: true });
    if (!target.stat) throw new ServiceError("NOT_FOUND", `No such file or directory: ${requested}`);
    if (!target.stat.isDirectory()) {
      throw new ServiceError("NOT_A_DIRECTORY", `The path is not a directory: ${requested}`);
    }
    access.require(target.stat, READ | SEARCH, requested);
    const names = (await readdir(target.path)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const entries: DirectoryListing["entries"] = [];
    for (let start = 0; start < names.length; start += STAT_BATCH) {
      const batch = names.slice(start, start + STAT_BATCH);
      const stats = await Promise.all(
        batch.map((name) => describe(posix.join(target.path, name)).catch(() => null)),
      );
      batch.forEach((name, index) => {
        const entry = stats[index];
        if (!entry) return;
        entries.push({
          name,
          is_dir: entry.isDirectory(),
          size: entry.size,
          modified_at: Math.max(0, Math.trunc(entry.mtimeMs)),
        });
      });
    }
    return { path: absolute, entries };
  } catch (error) {
    throw fileError(error, requested, "NOT_A_DIRECTORY");
  }
}
