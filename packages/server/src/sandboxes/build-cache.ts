/**
 * # build-cache
 *
 * The cache of build steps. A step's key is the sha256 of its parent's key and its instruction with its
 * inputs (for `COPY`, the digest of the files it takes), so a key names the whole chain from `FROM` to it, as
 * Docker's layer cache does. A cached step maps to the snapshot of the build sandbox's file system after it;
 * a build resumes from the last cached step, and a build whose every step is cached starts no sandbox.
 * Entries are per project: one project's files never reach another's build.
 */
import { createHash } from "node:crypto";
import type { Db } from "../store/db.ts";

/** The key of the step after `parent`: `parent` is the previous key, or the base (FROM) description. */
export function stepKey(parent: string, instruction: unknown, inputs = ""): string {
  return createHash("sha256")
    .update(parent)
    .update("\0")
    .update(JSON.stringify(instruction))
    .update("\0")
    .update(inputs)
    .digest("hex");
}

export interface BuildCache {
  /** The snapshot after the step of this key, if cached. */
  get(projectId: string, key: string): Promise<string | null>;
  put(projectId: string, key: string, snapshotId: string): Promise<void>;
  /** Forgets entries of a snapshot that is gone. */
  forgetSnapshot(snapshotId: string): Promise<void>;
}

export function createBuildCache(db: Db): BuildCache {
  return {
    async get(projectId, key) {
      const rows = await db.query<{ snapshot_id: string }>(
        "SELECT snapshot_id FROM template_build_cache WHERE project_id = ? AND step_key = ?",
        [projectId, key],
      );
      return rows[0]?.snapshot_id ?? null;
    },
    async put(projectId, key, snapshotId) {
      await db.execute("DELETE FROM template_build_cache WHERE project_id = ? AND step_key = ?", [
        projectId,
        key,
      ]);
      await db.execute(
        "INSERT INTO template_build_cache (project_id, step_key, snapshot_id, created_at) VALUES (?, ?, ?, ?)",
        [projectId, key, snapshotId, Date.now()],
      );
    },
    async forgetSnapshot(snapshotId) {
      await db.execute("DELETE FROM template_build_cache WHERE snapshot_id = ?", [snapshotId]);
    },
  };
}
