import { type Snapshot, sandboxRoutes } from "@svc/contract";
import type { Transport } from "./transport.ts";

/** The project's sandbox snapshots (taken with `sandbox.snapshot()`). */
export class Snapshots {
  readonly #control: Transport;
  constructor(control: Transport) {
    this.#control = control;
  }

  /**
   * Every snapshot of the project; the template build cache's (`kind: "build_cache"`) too with `includeBuildCache`.
   *
   * @example
   * const done = (await client.snapshots.list()).filter((s) => s.status === "completed");
   */
  async list(options: { includeBuildCache?: boolean } = {}): Promise<Snapshot[]> {
    const query = options.includeBuildCache ? { include: "build_cache" as const } : {};
    return (await this.#control.call(sandboxRoutes.listSnapshots, { query })).snapshots;
  }

  /**
   * One snapshot.
   *
   * @example
   * const { status } = await client.snapshots.get("snap_...");
   */
  get(id: string): Promise<Snapshot> {
    return this.#control.call(sandboxRoutes.getSnapshot, { params: { snapshot_id: id } });
  }

  /**
   * Waits until a snapshot is completed (or failed: then throws with why).
   *
   * @example
   * const snapshot = await client.snapshots.wait((await sandbox.snapshot()).snapshot_id);
   */
  async wait(id: string, options: { timeoutMs?: number } = {}): Promise<Snapshot> {
    const deadline = Date.now() + (options.timeoutMs ?? 300_000);
    for (let interval = 20; ; interval = Math.min(interval * 2, 500)) {
      const snapshot = await this.get(id);
      if (snapshot.status === "completed" || snapshot.status === "local_ready") return snapshot;
      if (snapshot.status === "failed") throw new Error(`snapshot ${id} failed: ${snapshot.error}`);
      if (Date.now() > deadline) throw new Error(`snapshot ${id} is still ${snapshot.status}`);
      await new Promise((r) => setTimeout(r, interval));
    }
  }

  /**
   * Deletes a snapshot (refused while a template or a starting sandbox uses it).
   *
   * @example
   * await client.snapshots.delete("snap_...");
   */
  async delete(id: string): Promise<void> {
    await this.#control.call(sandboxRoutes.deleteSnapshot, { params: { snapshot_id: id } });
  }
}
