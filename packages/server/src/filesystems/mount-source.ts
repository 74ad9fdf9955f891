import type { FileSystemMount } from "@svc/contract";
import type { MountResolution } from "../sandboxes/scheduler.ts";
import type { FileSystemRepository } from "./repository.ts";
import type { FileSystemStorage } from "./storage.ts";

/**
 * Where a mount's tree is: the named file system of the sandbox's project (another project's is not found), its
 * live head, or the permanent snapshot it pins.
 */
export async function resolveMount(
  fileSystems: { repo: FileSystemRepository; storage: FileSystemStorage },
  projectId: string,
  mount: FileSystemMount,
): Promise<MountResolution> {
  const row = await fileSystems.repo.find(projectId, mount.file_system_id);
  if (row?.status !== "ready") {
    return { reason: "FileSystemNotFound", details: `no file system ${mount.file_system_id} in the project` };
  }
  if (mount.snapshot_id !== undefined && !(await fileSystems.repo.snapshot(row.id, mount.snapshot_id))) {
    return {
      reason: "FileSystemSnapshotNotFound",
      details: `${mount.snapshot_id} is not a permanent snapshot of file system ${row.name}`,
    };
  }
  const source = fileSystems.storage.localPath(row.id, mount.snapshot_id);
  if (source === null) {
    return { reason: "FileSystemNotFound", details: `file system ${row.name} is not on this host's storage` };
  }
  return { source };
}
