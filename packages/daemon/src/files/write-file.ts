import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { chown, type FileHandle, mkdir, open, rename, rm, stat } from "node:fs/promises";
import { posix } from "node:path";
import type { Readable } from "node:stream";
import { ServiceError } from "@svc/contract/errors";
import { fileError } from "./file-errors.ts";
import { walkPath } from "./path-walk.ts";
import { toSandboxPath } from "./sandbox-path.ts";
import { FileAccess, type FileUser, SEARCH, WRITE } from "./user-access.ts";

/** Prefix of the temporary file an upload is written to before it is renamed into place. */
export const UPLOAD_TEMP_PREFIX = ".svc-upload-";

/** Creates the missing directories below `parent`, owned by the user; returns the last one and its stat. */
async function createParents(
  access: FileAccess,
  parent: string,
  parentStat: Stats,
  names: readonly string[],
): Promise<{ dir: string; dirStat: Stats }> {
  let dir = parent;
  let dirStat = parentStat;
  for (const name of names) {
    access.require(dirStat, WRITE | SEARCH, dir);
    const next = posix.join(dir, name);
    let created = true;
    await mkdir(next, 0o777).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
      created = false;
    });
    const owner = access.newOwner(dirStat);
    if (created && owner) await chown(next, owner.uid, owner.gid);
    const nextStat = await stat(next);
    if (!nextStat.isDirectory()) throw Object.assign(new Error(`ENOTDIR: ${next}`), { code: "ENOTDIR" });
    dir = next;
    dirStat = nextStat;
  }
  return { dir, dirStat };
}

async function writeAll(handle: FileHandle, body: Readable): Promise<void> {
  // The request stays open on failure (no destroy), so the route can drain it and still answer.
  for await (const chunk of body.iterator({ destroyOnReturn: false })) {
    const bytes = chunk as Buffer;
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
      offset += bytesWritten;
    }
  }
}

/**
 * Writes `body` to a file as the default user, creating missing parent directories (owned by the user). The
 * bytes stream to a temporary file in the target's directory, which is synced and renamed over the target:
 * readers see the old file or the whole new one, and a failed upload (full disk, dropped connection) leaves
 * no partial file. A symlink is written through to its target. A new file belongs to the user with the
 * default mode (0666 less the daemon's umask); a replaced file keeps its owner and permission bits.
 */
export async function writeSandboxFile(requested: string, user: FileUser, body: Readable): Promise<void> {
  const absolute = toSandboxPath(requested, user.home);
  let temp: string | undefined;
  let handle: FileHandle | undefined;
  try {
    if (requested.endsWith("/"))
      throw new ServiceError("IS_DIRECTORY", `The path names a directory: ${requested}`);
    const access = await FileAccess.of(user);
    const target = await walkPath(absolute, access, { followLast: true, allowMissingParents: true });
    const existing = target.stat;
    if (existing?.isDirectory())
      throw new ServiceError("IS_DIRECTORY", `The path is a directory: ${requested}`);
    if (existing && !existing.isFile()) {
      throw new ServiceError("INVALID_QUERY_PARAMS", `Not a regular file: ${requested}`);
    }
    if (existing) {
      access.require(existing, WRITE, requested);
      access.requireRemovable(target.parentStat, existing, requested);
    }
    const { dir, dirStat } = await createParents(
      access,
      target.parent,
      target.parentStat,
      target.missingDirs,
    );
    access.require(dirStat, WRITE | SEARCH, requested);

    temp = posix.join(dir, `${UPLOAD_TEMP_PREFIX}${randomBytes(8).toString("hex")}`);
    handle = await open(temp, "wx", existing ? 0o600 : 0o666);
    const owner =
      existing && access.canChown ? { uid: existing.uid, gid: existing.gid } : access.newOwner(dirStat);
    if (owner) await handle.chown(owner.uid, owner.gid);
    if (existing) await handle.chmod(existing.mode & 0o777);
    await writeAll(handle, body);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(temp, target.path);
    temp = undefined;
  } catch (error) {
    await handle?.close().catch(() => {});
    if (temp !== undefined) await rm(temp, { force: true }).catch(() => {});
    throw fileError(error, requested, "NOT_A_DIRECTORY");
  }
}
