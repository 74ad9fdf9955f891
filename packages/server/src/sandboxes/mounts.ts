import { posix } from "node:path";
import {
  type FileSystemMount,
  MAX_MOUNTS,
  type Sandbox,
  ServiceError,
  type sandboxRoutes,
} from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { RESERVED_GUEST_PATHS } from "../executor/linux/fs-mounts.ts";
import type { Logger } from "../log.ts";
import type { SandboxRepository, SandboxRow } from "./repository.ts";
import type { Scheduler } from "./scheduler.ts";

const invalid = (message: string) => new ServiceError("INVALID_MOUNT", message);

/** `/data/./x/` → `/data/x`; `/` and paths under the sandbox's reserved ones are refused. */
export function normalizeMountPath(path: string): string {
  const normal = posix.normalize(path).replace(/\/+$/, "");
  if (normal === "" || normal === "/") throw invalid("mount_path must not be /");
  if (!normal.startsWith("/")) throw invalid("mount_path must be absolute");
  const reserved = RESERVED_GUEST_PATHS.find((r) => normal === r || normal.startsWith(`${r}/`));
  if (reserved) throw invalid(`mount_path ${normal} is under ${reserved}, which the sandbox reserves`);
  return normal;
}

/** Whether two normalized paths are the same or one is inside the other. */
function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** One mount as stored and shown: path normalized; `snapshot_id` only when pinned (and then read-only). */
export function checkMount(mount: FileSystemMount): FileSystemMount {
  const path = normalizeMountPath(mount.mount_path);
  if (mount.snapshot_id !== undefined && mount.read_only !== true) {
    throw invalid("a mount pinned to snapshot_id must be read_only");
  }
  return {
    file_system_id: mount.file_system_id,
    mount_path: path,
    read_only: mount.read_only === true,
    prefetch: mount.prefetch === true,
    ...(mount.snapshot_id !== undefined ? { snapshot_id: mount.snapshot_id } : {}),
  };
}

/** The mounts of a create request: each checked; paths unique and not nested within the list (400 otherwise). */
export function checkMounts(mounts: readonly FileSystemMount[]): FileSystemMount[] {
  const checked = mounts.map(checkMount);
  for (const [i, a] of checked.entries()) {
    for (const b of checked.slice(i + 1)) {
      if (overlaps(a.mount_path, b.mount_path)) {
        throw invalid(`mount paths ${a.mount_path} and ${b.mount_path} are the same or nested`);
      }
    }
  }
  return checked;
}

interface MountDeps {
  repo: SandboxRepository;
  scheduler: Scheduler;
  found(auth: AuthContext, idOrName: string): Promise<SandboxRow>;
  view(auth: AuthContext, row: SandboxRow): Promise<Sandbox>;
  log: Logger;
}

/**
 * Attach and detach. Attach answers with the record already listing the mount and applies it in the background
 * (Scheduler.applyMounts: a file system that does not exist ends the sandbox, per the spec); detach unmounts
 * before it answers.
 */
export function mountHandlers(
  deps: MountDeps,
): Pick<Handlers<typeof sandboxRoutes>, "attachFileSystem" | "detachFileSystem"> {
  return {
    attachFileSystem: async ({ params, body, auth }) => {
      const row = await deps.found(auth, params.sandbox_id);
      const mount = checkMount(body);
      if (row.status !== "running") {
        throw new ServiceError("MOUNT_CONFLICT", `the sandbox is ${row.status}, not running`);
      }
      const updated =
        (await deps.repo.updateMounts(row.id, (current) => {
          if (current.length >= MAX_MOUNTS) {
            throw new ServiceError("MOUNT_CONFLICT", `the sandbox already has ${MAX_MOUNTS} mounts`);
          }
          const clash = current.find((m) => overlaps(m.mount_path, mount.mount_path));
          if (clash) throw new ServiceError("MOUNT_CONFLICT", `${clash.mount_path} is already mounted`);
          return [...current, mount];
        })) ?? row;
      deps.scheduler
        .applyMounts(row.id)
        .catch((error) => deps.log("mount convergence failed", { sandbox: row.id, error: String(error) }));
      return deps.view(auth, updated);
    },

    detachFileSystem: async ({ params, body, auth }) => {
      const row = await deps.found(auth, params.sandbox_id);
      const path = normalizeMountPath(body.mount_path);
      if (!row.fileSystems.some((m) => m.mount_path === path)) {
        throw invalid(`no file system is mounted at ${path}`);
      }
      const updated =
        (await deps.repo.update(row.id, {
          fileSystems: row.fileSystems.filter((m) => m.mount_path !== path),
        })) ?? row;
      await deps.scheduler.detachMount(updated, path);
      return deps.view(auth, updated);
    },
  };
}
