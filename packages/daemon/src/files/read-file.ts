import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { ServiceError } from "@svc/contract/errors";
import { fileError } from "./file-errors.ts";
import { walkPath } from "./path-walk.ts";
import { toSandboxPath } from "./sandbox-path.ts";
import { FileAccess, type FileUser, READ } from "./user-access.ts";

export interface FileContents {
  size: number;
  /** The file's bytes, read from disk as the client takes them; destroying it closes the file. */
  stream: Readable;
}

/**
 * Opens a regular file for reading as the default user. A symlink is followed; a directory answers
 * IS_DIRECTORY, a device, FIFO or socket INVALID_QUERY_PARAMS (only regular files have a length to send).
 */
export async function readSandboxFile(requested: string, user: FileUser): Promise<FileContents> {
  const absolute = toSandboxPath(requested, user.home);
  try {
    const access = await FileAccess.of(user);
    const target = await walkPath(absolute, access, { followLast: true });
    if (!target.stat) throw new ServiceError("NOT_FOUND", `No such file or directory: ${requested}`);
    if (target.stat.isDirectory())
      throw new ServiceError("IS_DIRECTORY", `The path is a directory: ${requested}`);
    access.require(target.stat, READ, requested);
    // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the walk already resolved links.
    const handle = await open(target.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const stat = await handle.stat();
    if (!stat.isFile()) {
      await handle.close();
      throw stat.isDirectory()
        ? new ServiceError("IS_DIRECTORY", `The path is a directory: ${requested}`)
        : new ServiceError("INVALID_QUERY_PARAMS", `Not a regular file: ${requested}`);
    }
    if (stat.size === 0) {
      await handle.close();
      return { size: 0, stream: Readable.from([]) };
    }
    // Bounded by the size sent in content-length, even if the file grows meanwhile.
    return { size: stat.size, stream: handle.createReadStream({ start: 0, end: stat.size - 1 }) };
  } catch (error) {
    throw fileError(error, requested, "NOT_FOUND");
  }
}
