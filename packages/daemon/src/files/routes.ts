/**
 * The file routes of the runtime daemon: read, write, delete and list.
 *
 * Paths. `path` is absolute in the sandbox, or relative to the default user's home directory. A `..` segment
 * answers 403 PATH_TRAVERSAL before anything is looked up (after URL decoding, so `%2e%2e` counts too). Symbolic
 * links inside the sandbox are followed for reads, writes and listings (their targets may use `..`; the whole
 * sandbox is the scope, so there is no outside to escape to); a delete removes the link itself.
 *
 * User. File operations act as the default user (`svc-user`), the user processes run as when a request names
 * none, so what the API can do matches what that user's shell could. The daemon may run as root; then it does
 * the I/O itself but first checks the user's permissions from the mode bits along the path, the way the kernel
 * would for that uid and its groups (user-access.ts): a root-only file answers 403 PERMISSION_DENIED, new files
 * and the parent directories a write creates are chowned to the user, and a replaced file keeps its owner and
 * mode. ACLs and capabilities are not consulted. This matches semantics and is not a security boundary: the
 * same callers may start processes as root. When the daemon does not run as root it acts as its own user and
 * the kernel decides.
 *
 * Streaming. Bodies stream both ways without being held in memory: a read sends the file from disk with its
 * content-length; a write streams the request body to a temporary file beside the target, syncs it and renames
 * it into place, so a full disk (507 NO_SPACE) or a dropped upload leaves no partial file. Deleting a directory
 * answers 400 IS_DIRECTORY: the route deletes files, never trees.
 */
import { runtimeRoutes } from "@svc/contract/runtime";
import { type DaemonApp, serve } from "../app.ts";
import { deleteSandboxFile } from "./delete-file.ts";
import { listSandboxDirectory } from "./list-directory.ts";
import { readSandboxFile } from "./read-file.ts";
import type { FileUser } from "./user-access.ts";
import { writeSandboxFile } from "./write-file.ts";

export type { FileUser } from "./user-access.ts";

export interface FileRoutesOptions {
  /** The user file operations act as; relative paths resolve against its home. */
  defaultUser: FileUser;
}

export function registerFileRoutes(app: DaemonApp, options: FileRoutesOptions): void {
  const user = options.defaultUser;
  // File contents are raw bytes whatever their Content-Type says: no file route parses a body (a JSON file is not
  // parsed as JSON).
  const raw = { rawBody: true };
  serve(
    app,
    runtimeRoutes.readSandboxFile,
    async ({ query, reply }) => {
      const file = await readSandboxFile(query.path, user);
      reply.code(200).type("application/octet-stream").header("content-length", file.size);
      return reply.send(file.stream);
    },
    raw,
  );

  serve(
    app,
    runtimeRoutes.writeSandboxFile,
    async ({ query, request }) => {
      try {
        await writeSandboxFile(query.path, user, request.raw);
      } catch (error) {
        // Discard the rest of a body the write did not take, so the client reads the error.
        if (!request.raw.complete && !request.raw.destroyed) request.raw.resume();
        throw error;
      }
    },
    raw,
  );

  serve(
    app,
    runtimeRoutes.deleteSandboxFile,
    async ({ query }) => {
      await deleteSandboxFile(query.path, user);
    },
    raw,
  );

  serve(app, runtimeRoutes.listSandboxDirectory, ({ query }) => listSandboxDirectory(query.path, user), raw);
}
