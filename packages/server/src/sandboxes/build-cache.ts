/**
 * # build-cache
 *
 * The cache of build steps. A step's key is the sha256 of its parent's key and its instruction with its
 * inputs (for `COPY`, the digest of the files it takes), so a key names the whole chain from `FROM` to it, as
 * Docker's layer cache does. A cached step maps to the snapshot of the build sandbox's file system after it;
 * a build resumes from the last cached step, and a build whose every step is cached starts no sandbox.
 * Entries are per project: one project's files never reach another's build.
 *
 * The snapshots are of kind `build_cache` (listed by `GET /snapshots?include=build_cache` only). A built template
 * records the cached steps it was made through; deleting it removes those that no other template uses. A
 * project keeps its newest `keep` steps (config `buildCacheSteps`): older entries are evicted, and their
 * snapshots removed unless a template uses them.
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
  /** Records the cache snapshots a template was built through. */
  use(templateId: string, snapshotIds: readonly string[]): Promise<void>;
  /** Forgets a deleted template's uses; answers its build-cache snapshots that no template uses any more. */
  release(templateId: string): Promise<string[]>;
  /** Keeps the project's newest `keep` entries; answers the evicted ones' snapshots that no template uses. */
  evict(projectId: string, keep: number): Promise<string[]>;
}

/** Removes build-cache snapshots (their rows and disks) and the entries that name them. */
export async function removeCacheSnapshots(
  cache: BuildCache,
  snapshots: { remove(id: string): Promise<void> },
  removeDisk: (id: string) => Promise<void>,
  ids: readonly string[],
): Promise<void> {
  for (const id of ids) {
    await cache.forgetSnapshot(id);
    await snapshots.remove(id);
    await removeDisk(id).catch(() => undefined);
  }
}

export function createBuildCache(db: Db): BuildCache {
  const cache: BuildCache = {
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
    async use(templateId, snapshotIds) {
      for (const snapshotId of new Set(snapshotIds)) {
        await db.execute("DELETE FROM template_cache_uses WHERE template_id = ? AND snapshot_id = ?", [
          templateId,
          snapshotId,
        ]);
        await db.execute("INSERT INTO template_cache_uses (template_id, snapshot_id) VALUES (?, ?)", [
          templateId,
          snapshotId,
        ]);
      }
    },
    async release(templateId) {
      const used = await db.query<{ snapshot_id: string }>(
        "SELECT snapshot_id FROM template_cache_uses WHERE template_id = ?",
        [templateId],
      );
      await db.execute("DELETE FROM template_cache_uses WHERE template_id = ?", [templateId]);
      return unused(used.map((row) => row.snapshot_id));
    },
    async evict(projectId, keep) {
      const old = await db.query<{ step_key: string; snapshot_id: string }>(
        `SELECT step_key, snapshot_id FROM template_build_cache WHERE project_id = ?
           ORDER BY created_at DESC, step_key LIMIT ${db.dialect === "postgres" ? "ALL" : "-1"} OFFSET ?`,
        [projectId, keep],
      );
      const evicted: string[] = [];
      for (const row of old) {
        // A sandbox being created from it (a build resuming there) keeps the entry until a later eviction.
        if (await starting(row.snapshot_id)) continue;
        await db.execute("DELETE FROM template_build_cache WHERE project_id = ? AND step_key = ?", [
          projectId,
          row.step_key,
        ]);
        evicted.push(row.snapshot_id);
      }
      return unused(evicted);
    },
  };

  async function starting(snapshotId: string): Promise<boolean> {
    const rows = await db.query("SELECT id FROM sandboxes WHERE snapshot_id = ? AND status = 'pending'", [
      snapshotId,
    ]);
    return rows.length > 0;
  }

  /**
   * Of these snapshots, the build cache's that no template uses (its uses, or as its own snapshot) and no sandbox
   * is being created from (another build resuming from it).
   */
  async function unused(ids: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const id of new Set(ids)) {
      const rows = await db.query(
        `SELECT id FROM sandbox_snapshots WHERE id = ? AND kind = 'build_cache'
           AND NOT EXISTS (SELECT 1 FROM template_cache_uses WHERE snapshot_id = ?)
           AND NOT EXISTS (SELECT 1 FROM sandbox_templates WHERE snapshot_id = ?)
           AND NOT EXISTS (SELECT 1 FROM sandboxes WHERE snapshot_id = ? AND status = 'pending')`,
        [id, id, id, id],
      );
      if (rows.length > 0) out.push(id);
    }
    return out;
  }
  return cache;
}
