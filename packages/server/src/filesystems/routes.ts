import { type FileSystemMount, ServiceError, type sandboxRoutes } from "@svc/contract";
import type { FastifyInstance } from "fastify";
import { limitBytes } from "../api/body-limit.ts";
import { type Handlers, RAW_BODY_TYPE } from "../api/routes.ts";
import type { SandboxRepository } from "../sandboxes/repository.ts";
import { toRfc3339 } from "../store/ids.ts";
import type { FileSystemRepository, FileSystemRow, FileSystemSnapshotRow } from "./repository.ts";
import type { FileSystemStorage } from "./storage.ts";

export interface FileSystemDeps {
  repo: FileSystemRepository;
  storage: FileSystemStorage;
  sandboxes: SandboxRepository;
  /** Largest file written, or tar pushed, through the content API (413 FILE_TOO_LARGE beyond). */
  maxBytes: number;
}

type FileSystemHandlers = Pick<
  Handlers<typeof sandboxRoutes>,
  | "createFileSystem"
  | "listFileSystems"
  | "deleteFileSystem"
  | "readFileSystemFile"
  | "writeFileSystemFile"
  | "deleteFileSystemFile"
  | "fileSystemTree"
  | "pushFileSystem"
  | "snapshotFileSystem"
  | "listFileSystemSnapshots"
>;

/** Lets the raw-body routes read their bodies as they arrive (never buffered whole); every raw body comes as
 * RAW_BODY_TYPE (api/routes.ts), whatever the client labelled it. */
export function installFileSystemBodies(app: FastifyInstance): void {
  app.addContentTypeParser(RAW_BODY_TYPE, (_request, _payload, done) => done(null));
}

function fileSystemView(row: FileSystemRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    created_at: toRfc3339(row.createdAt),
    updated_at: toRfc3339(row.updatedAt),
  };
}

function snapshotView(row: FileSystemSnapshotRow) {
  return {
    snapshot_id: row.id,
    file_system_id: row.fileSystemId,
    message: row.message,
    permanent: true,
    created_at: toRfc3339(row.createdAt),
  };
}

/** Whether a live sandbox of the project mounts this file system (by name, as mounts name it). */
export function mountsFileSystem(mounts: readonly FileSystemMount[], row: FileSystemRow): boolean {
  return mounts.some((mount) => mount.file_system_id === row.name || mount.file_system_id === row.id);
}

/** The named file systems of a project: the collection, their trees' content API, and permanent snapshots. */
export function fileSystemHandlers(deps: FileSystemDeps): FileSystemHandlers {
  const { repo, storage } = deps;

  async function found(projectId: string, idOrName: string): Promise<FileSystemRow> {
    const row = await repo.find(projectId, idOrName);
    if (row?.status !== "ready") {
      throw new ServiceError("FILE_SYSTEM_NOT_FOUND", `no file system ${idOrName}`);
    }
    return row;
  }

  async function takeSnapshot(row: FileSystemRow, message: string | null): Promise<FileSystemSnapshotRow> {
    const snapshot = await repo.addSnapshot(row.id, message);
    try {
      await storage.snapshot(row.id, snapshot.id);
    } catch (error) {
      await repo.removeSnapshot(snapshot.id).catch(() => undefined);
      throw error;
    }
    return snapshot;
  }

  return {
    createFileSystem: async ({ body, auth }) => {
      const row = await repo.create(auth.projectId, body.name, body.description ?? null);
      if (!row)
        throw new ServiceError("FILE_SYSTEM_EXISTS", `the project already has a file system ${body.name}`);
      await storage.create(row.id);
      return fileSystemView(row);
    },

    listFileSystems: async ({ auth }) => ({
      file_systems: (await repo.list(auth.projectId))
        .filter((row) => row.status === "ready")
        .map(fileSystemView),
    }),

    deleteFileSystem: async ({ params, auth }) => {
      const row = await found(auth.projectId, params.file_system);
      const live = await deps.sandboxes.live(auth.projectId);
      const user = live.find((sandbox) => mountsFileSystem(sandbox.fileSystems, row));
      if (user) {
        throw new ServiceError("MOUNT_CONFLICT", `file system ${row.name} is mounted by sandbox ${user.id}`);
      }
      await repo.setStatus(row.id, "deleting");
      await storage.remove(row.id);
      await repo.remove(row.id);
    },

    readFileSystemFile: async ({ params, query, auth, reply }) => {
      const row = await found(auth.projectId, params.file_system);
      const { stream, size } = await storage.read(row.id, query.path);
      return reply.type("application/octet-stream").header("content-length", size).send(stream);
    },

    writeFileSystemFile: async ({ params, query, auth, request }) => {
      const row = await found(auth.projectId, params.file_system);
      await storage.write(row.id, query.path, request.raw.pipe(limitBytes(deps.maxBytes)));
      await repo.touch(row.id);
    },

    deleteFileSystemFile: async ({ params, query, auth }) => {
      const row = await found(auth.projectId, params.file_system);
      await storage.deleteFile(row.id, query.path);
      await repo.touch(row.id);
    },

    fileSystemTree: async ({ params, auth }) => {
      const row = await found(auth.projectId, params.file_system);
      return { entries: await storage.tree(row.id) };
    },

    pushFileSystem: async ({ params, query, auth, request }) => {
      const row = await found(auth.projectId, params.file_system);
      await storage.replaceHead(row.id, request.raw.pipe(limitBytes(deps.maxBytes)));
      await repo.touch(row.id);
      const snapshot = query.message ? await takeSnapshot(row, query.message) : null;
      return { snapshot_id: snapshot?.id ?? null };
    },

    snapshotFileSystem: async ({ params, body, auth }) => {
      const row = await found(auth.projectId, params.file_system);
      return snapshotView(await takeSnapshot(row, body.message ?? null));
    },

    listFileSystemSnapshots: async ({ params, auth }) => {
      const row = await found(auth.projectId, params.file_system);
      return { snapshots: (await repo.snapshots(row.id)).map(snapshotView) };
    },
  };
}
