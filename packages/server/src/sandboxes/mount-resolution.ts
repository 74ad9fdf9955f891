import type { FileSystemMount } from "@svc/contract";
import { type Executor, ExecutorError } from "../executor/executor.ts";
import type { SandboxRow } from "./repository.ts";

/** Where a mount's tree is on this host, or why the mount cannot converge (the sandbox then ends with it). */
export type MountResolution =
  | { source: string }
  | { reason: "FileSystemNotFound" | "FileSystemSnapshotNotFound"; details: string };

/** Finds a mount's tree in a project (SchedulerOptions.resolveMount). */
export type MountResolver = (projectId: string, mount: FileSystemMount) => Promise<MountResolution>;

/**
 * Resolves one mount and applies it on the executor. A mount that cannot resolve throws an ExecutorError with its
 * typed reason; `strict` (a start in progress) makes a failed apply one too (MountFailed), so the start fails.
 */
export async function mountOne(
  resolveMount: MountResolver | undefined,
  executor: Executor,
  row: SandboxRow,
  mount: FileSystemMount,
  strict: boolean,
): Promise<void> {
  const resolved: MountResolution = resolveMount
    ? await resolveMount(row.projectId, mount)
    : { reason: "FileSystemNotFound", details: "this server serves no file systems" };
  if ("reason" in resolved) throw new ExecutorError(resolved.reason, resolved.details);
  try {
    await executor.mount(row.id, {
      source: resolved.source,
      path: mount.mount_path,
      readOnly: mount.read_only === true,
    });
  } catch (error) {
    if (strict) throw new ExecutorError("MountFailed", `${mount.mount_path}: ${(error as Error).message}`);
    throw error;
  }
}
