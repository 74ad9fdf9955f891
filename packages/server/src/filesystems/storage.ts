/**
 * # storage
 *
 * Where the trees of named file systems live. One small interface, so that a later issue can put them on storage
 * every host reaches; `LocalFileSystemStorage` keeps them under the data directory of this host:
 * `<dataDir>/file-systems/<fs id>/head/` (the live tree, what read-write mounts and the content API use) and
 * `.../snapshots/<snapshot id>/` (permanent snapshots: copies of the head, never written again).
 *
 * Paths from clients are resolved beneath the tree's root one component at a time through directory file
 * descriptors (`/proc/self/fd/<fd>/<name>`, never following a symbolic link), so neither a `..` nor a symlink
 * that a sandbox planted in a mounted tree can lead the content API anywhere else, even if the tree changes
 * while a path is being resolved. Files are owned by the sandboxes' default user, so they can write them.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants, createWriteStream } from "node:fs";
import {
  chown,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  rename,
  rm,
  rmdir,
  unlink,
} from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ServiceError } from "@svc/contract";

/** The uid and gid that own file-system trees: the sandboxes' default user (`svc-user`). */
export const TREE_OWNER = { uid: 1500, gid: 1500 } as const;

/**
 * Whether this server can give trees to TREE_OWNER: as root (which running sandboxes needs anyway). Otherwise
 * the trees belong to the server's own user.
 */
const OWNS_TREES = process.getuid?.() === 0;

/** Gives a path to TREE_OWNER, when this server can. */
async function toTreeOwner(path: string): Promise<void> {
  if (OWNS_TREES) await chown(path, TREE_OWNER.uid, TREE_OWNER.gid);
}

/** Most entries one tree listing returns. */
export const MAX_TREE_ENTRIES = 100_000;

export interface TreeEntry {
  /** Relative to the tree's root, `/`-separated. */
  path: string;
  is_dir: boolean;
  size: number;
  modified_at: number;
}

export interface FileSystemStorage {
  /** Makes the empty live tree of a new file system. */
  create(fileSystemId: string): Promise<void>;
  /** Removes a file system's trees, snapshots included. */
  remove(fileSystemId: string): Promise<void>;
  /** A file of the live head, streamed. */
  read(fileSystemId: string, path: string): Promise<{ stream: Readable; size: number }>;
  /** Writes a file of the live head (parents made), replacing it whole once written. */
  write(fileSystemId: string, path: string, body: Readable): Promise<void>;
  deleteFile(fileSystemId: string, path: string): Promise<void>;
  /** Every entry of the live head (symbolic links are listed, never followed). */
  tree(fileSystemId: string): Promise<TreeEntry[]>;
  /** Replaces the live head's contents with a tar archive's (plain or gzip). */
  replaceHead(fileSystemId: string, tar: Readable): Promise<void>;
  /** Copies the live head into a permanent snapshot. */
  snapshot(fileSystemId: string, snapshotId: string): Promise<void>;
  /**
   * The host directory of the head, or of a snapshot, for an executor on this host to bind into a sandbox; null
   * where the trees are not on this host's disk.
   */
  localPath(fileSystemId: string, snapshotId?: string): string | null;
}

const pathError = (message: string) => new ServiceError("PATH_TRAVERSAL", message);

/** A client's path as components: leading and repeated `/` ignored; `.`, `..` and NUL refused. */
export function pathComponents(path: string): string[] {
  if (path.includes("\0")) throw pathError("the path contains a NUL byte");
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw pathError("the path contains '..'");
  if (parts.length === 0) throw new ServiceError("IS_DIRECTORY", "the path names the tree's root");
  return parts;
}

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}

/** Maps a failed file operation to the catalog's codes. */
function fileError(error: unknown, path: string): Error {
  switch (errno(error)) {
    case "ENOENT":
      return new ServiceError("NOT_FOUND", `no file ${path}`);
    case "ELOOP":
    case "ENOTDIR":
      return pathError(`${path} goes through a symbolic link or a file that is not a directory`);
    case "EISDIR":
      return new ServiceError("IS_DIRECTORY", `${path} is a directory`);
    default:
      return error as Error;
  }
}

const fdPath = (fd: number, name: string) => `/proc/self/fd/${fd}/${name}`;

/**
 * Opens the directory holding `parts`' last component, beneath `root`, following no symbolic link; with
 * `create`, missing directories are made (owned by TREE_OWNER). The caller closes the handle.
 */
async function openParent(root: string, parts: string[], create: boolean): Promise<FileHandle> {
  const directory = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  let dir = await open(root, directory);
  try {
    for (const part of parts.slice(0, -1)) {
      if (create) {
        await mkdir(fdPath(dir.fd, part), { mode: 0o755 }).then(
          () => toTreeOwner(fdPath(dir.fd, part)),
          (error) => {
            if (errno(error) !== "EEXIST") throw error;
          },
        );
      }
      const next = await open(fdPath(dir.fd, part), directory);
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error;
  }
}

/** Runs a command to its end; rejects with its stderr when it fails. */
function run(command: string, args: string[], options: { cwd?: string; stdin?: number } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      stdio: [options.stdin ?? "ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} failed (${code}): ${stderr.trim()}`)),
    );
  });
}

export class LocalFileSystemStorage implements FileSystemStorage {
  readonly #root: string;

  constructor(dataDir: string) {
    this.#root = join(dataDir, "file-systems");
  }

  #dir(fileSystemId: string): string {
    if (!/^fs_[a-z2-7]{26}$/.test(fileSystemId)) throw new Error(`not a file system id: ${fileSystemId}`);
    return join(this.#root, fileSystemId);
  }

  #head(fileSystemId: string): string {
    return join(this.#dir(fileSystemId), "head");
  }

  localPath(fileSystemId: string, snapshotId?: string): string {
    if (snapshotId === undefined) return this.#head(fileSystemId);
    if (!/^fsnap_[a-z2-7]{26}$/.test(snapshotId)) throw new Error(`not a snapshot id: ${snapshotId}`);
    return join(this.#dir(fileSystemId), "snapshots", snapshotId);
  }

  async create(fileSystemId: string): Promise<void> {
    const head = this.#head(fileSystemId);
    await mkdir(join(this.#dir(fileSystemId), "snapshots"), { recursive: true, mode: 0o700 });
    await mkdir(head, { mode: 0o755 });
    await toTreeOwner(head);
  }

  async remove(fileSystemId: string): Promise<void> {
    await rm(this.#dir(fileSystemId), { recursive: true, force: true });
  }

  async read(fileSystemId: string, path: string): Promise<{ stream: Readable; size: number }> {
    const parts = pathComponents(path);
    let dir: FileHandle | undefined;
    try {
      dir = await openParent(this.#head(fileSystemId), parts, false);
      const file = await open(
        fdPath(dir.fd, parts[parts.length - 1]),
        constants.O_RDONLY | constants.O_NOFOLLOW,
      );
      const stat = await file.stat();
      if (stat.isDirectory()) {
        await file.close();
        throw new ServiceError("IS_DIRECTORY", `${path} is a directory`);
      }
      // The stream owns the handle and closes it.
      return { stream: file.createReadStream(), size: stat.size };
    } catch (error) {
      throw error instanceof ServiceError ? error : fileError(error, path);
    } finally {
      await dir?.close().catch(() => undefined);
    }
  }

  async write(fileSystemId: string, path: string, body: Readable): Promise<void> {
    const parts = pathComponents(path);
    const name = parts[parts.length - 1];
    let dir: FileHandle | undefined;
    try {
      dir = await openParent(this.#head(fileSystemId), parts, true);
      const parent = dir.fd;
      const temp = `.${name}.svc-${randomBytes(6).toString("hex")}`;
      const file = await open(
        fdPath(parent, temp),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o644,
      );
      try {
        if (OWNS_TREES) await file.chown(TREE_OWNER.uid, TREE_OWNER.gid);
        for await (const chunk of body) await file.write(chunk as Buffer);
      } catch (error) {
        await file.close();
        await unlink(fdPath(parent, temp)).catch(() => undefined);
        throw error;
      }
      await file.close();
      try {
        await rename(fdPath(parent, temp), fdPath(parent, name));
      } catch (error) {
        await unlink(fdPath(parent, temp)).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      throw error instanceof ServiceError ? error : fileError(error, path);
    } finally {
      await dir?.close().catch(() => undefined);
    }
  }

  async deleteFile(fileSystemId: string, path: string): Promise<void> {
    const parts = pathComponents(path);
    let dir: FileHandle | undefined;
    try {
      dir = await openParent(this.#head(fileSystemId), parts, false);
      const target = fdPath(dir.fd, parts[parts.length - 1]);
      const stat = await lstat(target);
      if (stat.isDirectory()) await rmdir(target);
      else await unlink(target);
    } catch (error) {
      if (errno(error) === "ENOTEMPTY")
        throw new ServiceError("IS_DIRECTORY", `${path} is a directory that is not empty`);
      throw error instanceof ServiceError ? error : fileError(error, path);
    } finally {
      await dir?.close().catch(() => undefined);
    }
  }

  async tree(fileSystemId: string): Promise<TreeEntry[]> {
    const entries: TreeEntry[] = [];
    const walk = async (dir: string, prefix: string): Promise<void> => {
      for (const dirent of await readdir(dir, { withFileTypes: true })) {
        if (entries.length >= MAX_TREE_ENTRIES) return;
        const full = join(dir, dirent.name);
        const stat = await lstat(full).catch(() => null);
        if (!stat) continue;
        const path = prefix ? `${prefix}/${dirent.name}` : dirent.name;
        entries.push({
          path,
          is_dir: stat.isDirectory(),
          size: stat.size,
          modified_at: Math.floor(stat.mtimeMs),
        });
        // lstat: a symbolic link is an entry, never a way into another directory.
        if (stat.isDirectory()) await walk(full, path);
      }
    };
    await walk(this.#head(fileSystemId), "");
    return entries.sort((a, b) => a.path.localeCompare(b.path));
  }

  async replaceHead(fileSystemId: string, tar: Readable): Promise<void> {
    const dir = this.#dir(fileSystemId);
    const incoming = join(dir, `incoming-${randomBytes(6).toString("hex")}`);
    const archive = `${incoming}.tar`;
    await mkdir(incoming, { mode: 0o755 });
    await toTreeOwner(incoming);
    try {
      // Kept whole first (a file tar reads its compression from, plain or gzip), readable by the tree's owner.
      await pipeline(tar, createWriteStream(archive, { mode: 0o644 }));
      // tar runs as the tree's owner: it can make no device node and no file of another owner, and GNU tar
      // refuses members that climb out with `..` and makes symbolic links only after every other member. It
      // starts in the directory and reads the archive on stdin, both opened as root, so it needs no access
      // to the data directory around them.
      const archiveFile = await open(archive, "r");
      try {
        const magic = Buffer.alloc(2);
        await archiveFile.read(magic, 0, 2, 0);
        const gzip = magic[0] === 0x1f && magic[1] === 0x8b;
        const tar = [
          "tar",
          "-x",
          ...(gzip ? ["-z"] : []),
          "--no-same-owner",
          "--no-same-permissions",
          "-f",
          "-",
        ];
        const asOwner = [`--reuid=${TREE_OWNER.uid}`, `--regid=${TREE_OWNER.gid}`, "--clear-groups", "--"];
        const [command, ...args] = OWNS_TREES ? ["setpriv", ...asOwner, ...tar] : tar;
        await run(command, args, { cwd: incoming, stdin: archiveFile.fd });
      } finally {
        await archiveFile.close();
      }
    } catch (error) {
      await rm(incoming, { recursive: true, force: true });
      await rm(archive, { force: true });
      if (error instanceof ServiceError) throw error;
      throw new ServiceError(
        "INVALID_FILE",
        `the body is not a tar archive that can be extracted: ${(error as Error).message}`,
      );
    }
    // The head's contents are replaced in place (the directory stays), so mounts of it see the new tree.
    const head = this.#head(fileSystemId);
    for (const name of await readdir(head)) await rm(join(head, name), { recursive: true, force: true });
    for (const name of await readdir(incoming)) await rename(join(incoming, name), join(head, name));
    await rm(incoming, { recursive: true, force: true });
    await rm(archive, { force: true });
  }

  async snapshot(fileSystemId: string, snapshotId: string): Promise<void> {
    const target = this.localPath(fileSystemId, snapshotId);
    await mkdir(target, { mode: 0o755 });
    try {
      await run("cp", ["-a", "--reflink=auto", `${this.#head(fileSystemId)}/.`, target]);
    } catch (error) {
      await rm(target, { recursive: true, force: true });
      throw error;
    }
  }
}
