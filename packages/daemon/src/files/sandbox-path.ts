import { posix } from "node:path";
import { ServiceError } from "@svc/contract/errors";

/**
 * The absolute sandbox path a request names: absolute paths are taken as they are, relative ones resolve
 * against `home`. A `..` segment anywhere answers 403 PATH_TRAVERSAL before the filesystem is touched; the
 * query string is already URL-decoded here, so `%2e%2e` counts as `..` too. `.` segments and repeated slashes
 * are normalized away.
 */
export function toSandboxPath(requested: string, home: string): string {
  if (requested.split("/").includes("..")) {
    throw new ServiceError("PATH_TRAVERSAL", `The path contains '..': ${requested}`);
  }
  return posix.resolve(home, requested);
}
