import { ServiceError } from "@svc/contract/errors";

/**
 * The catalog error for a failed file operation on `requested` (the path as the client sent it). ENOTDIR means
 * "a component on the way is a file": no such file for a read or delete, NOT_A_DIRECTORY where the path must
 * lead through directories (write, list). Errors without a mapping stay as they are (500 INTERNAL_ERROR).
 */
export function fileError(
  error: unknown,
  requested: string,
  notADirectory: "NOT_FOUND" | "NOT_A_DIRECTORY",
): unknown {
  if (error instanceof ServiceError) return error;
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case "ENOENT":
      return new ServiceError("NOT_FOUND", `No such file or directory: ${requested}`);
    case "ENOTDIR":
      return notADirectory === "NOT_FOUND"
        ? new ServiceError("NOT_FOUND", `No such file or directory: ${requested}`)
        : new ServiceError("NOT_A_DIRECTORY", `A component of the path is not a directory: ${requested}`);
    case "ELOOP":
      return new ServiceError("NOT_FOUND", `Too many levels of symbolic links: ${requested}`);
    case "EISDIR":
      return new ServiceError("IS_DIRECTORY", `The path is a directory: ${requested}`);
    case "EACCES":
    case "EPERM":
      return new ServiceError("PERMISSION_DENIED", `Permission denied: ${requested}`);
    case "EROFS":
      return new ServiceError("PERMISSION_DENIED", `Read-only file system: ${requested}`);
    case "ENOSPC":
    case "EDQUOT":
      return new ServiceError("NO_SPACE", `No space left on the sandbox's disk writing ${requested}`);
    case "ENAMETOOLONG":
      return new ServiceError("INVALID_QUERY_PARAMS", `A component of the path is too long: ${requested}`);
    default:
      return error;
  }
}
