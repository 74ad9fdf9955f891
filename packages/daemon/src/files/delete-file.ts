import { unlink } from "node:fs/promises";
import { ServiceError } from "@svc/contract/errors";
import { fileError } from "./file-errors.ts";
import { walkPath } from "./path-walk.ts";
import { toSandboxPath } from "./sandbox-path.ts";
import { FileAccess, type FileUser } from "./user-access.ts";

/**
 * Deletes a file as the default user. A symlink is removed itself, never its target. A directory answers
 * IS_DIRECTORY: the route deletes files only, so one call never removes a whole tree.
 */
export async function deleteSandboxFile(requested: string, user: FileUser): Promise<void> {
  const absolute = toSandboxPath(requested, user.home);
  try {
    const access = await FileAccess.of(user);
    const target = await walkPath(absolute, access, { followLast: false });
    if (!target.stat) throw new ServiceError("NOT_FOUND", `No such file or directory: ${requested}`);
    if (target.stat.isDirectory())
      throw new ServiceError("IS_DIRECTORY", `The path is a directory: ${requested}`);
    access.requireRemovable(target.parentStat, target.stat, requested);
    await unlink(target.path);
  } catch (error) {
    throw fileError(error, requested, "NOT_FOUND");
  }
}
