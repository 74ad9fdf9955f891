import { ServiceError } from "@svc/contract";
import { type Executor, ExecutorError } from "../executor/executor.ts";
import { pinImage } from "../executor/linux/image-reference.ts";
import type { ControlOp } from "../hosts/relay.ts";
import { mountOne } from "./mount-resolution.ts";
import type { SandboxRow } from "./repository.ts";
import type { SchedulerSettings, Terminate } from "./scheduler-options.ts";
import { KeyedQueue } from "./serial-queue.ts";

/**
 * Operations on live sandboxes: suspend, resume, snapshot, mounts and egress policy. A sandbox on this host's
 * executor is operated here; one on another host's executor (several hosts) through that host's relay, which
 * serves it with `control` there.
 */
export class LiveOperations {
  readonly #o: SchedulerSettings;
  readonly #settled: (id: string) => Promise<void>;
  readonly #terminate: Terminate;
  /** Applies of each sandbox's egress policy, one after another (see #applyStoredNetwork). */
  readonly #networkApplies = new KeyedQueue();
  /** Convergences of each sandbox's mounts, one after another (see applyMounts). */
  readonly #mountApplies = new KeyedQueue();
  /** Snapshots being taken, by sandbox. */
  readonly #snapshotting = new Map<string, Promise<void>>();

  /** `settled` waits for a sandbox's start under way; `terminate` ends a sandbox whose mount cannot converge. */
  constructor(settings: SchedulerSettings, settled: (id: string) => Promise<void>, terminate: Terminate) {
    this.#o = settings;
    this.#settled = settled;
    this.#terminate = terminate;
  }

  /** Several hosts: the sandbox runs on another host's executor, which does its operations; null when here. */
  #remote(row: SandboxRow): ((op: ControlOp, args?: Record<string, unknown>) => Promise<unknown>) | null {
    const { cluster, executor } = this.#o;
    const dialer = cluster?.dialer;
    if (!dialer || !row.executorId || row.executorId === executor?.id) return null;
    return (op, args) => dialer.control(row, op, args);
  }

  /** Serves an operation another host forwarded for a sandbox of this host's executor (the relay's control). */
  async control(op: ControlOp, id: string, args: Record<string, unknown>): Promise<unknown> {
    const row = await this.#o.repo.get(id);
    if (!row) throw new ServiceError("SANDBOX_NOT_FOUND", `no sandbox ${id}`);
    switch (op) {
      case "network":
        return this.applyNetwork(id);
      case "mounts":
        return this.applyMounts(id);
      case "unmount":
        return this.detachMount(row, String(args.path));
      case "suspend":
        return this.suspend(row);
      case "resume":
        return this.resume(row);
      case "snapshot":
        return this.snapshot(row, String(args.snapshotId));
    }
  }

  /**
   * Applies a sandbox's stored egress policy to its live firewall, when it runs on this server's executor; a
   * sandbox being started is waited for (its start may have read the row before the change). Throws what the
   * executor throws (ServiceError INVALID_REQUEST for a hostname that does not resolve).
   */
  async applyNetwork(id: string): Promise<void> {
    const { repo, executor } = this.#o;
    const stored = this.#o.cluster ? await repo.get(id) : null;
    const remote = stored && this.#remote(stored);
    if (remote) {
      await remote("network");
      return;
    }
    if (!executor) return;
    for (let waited = 0; ; waited++) {
      await this.#settled(id);
      const row = await repo.get(id);
      if (!row || row.executorId !== executor.id) return;
      if (row.status === "running") return this.#applyStoredNetwork(id);
      // Claimed, but its start not yet registered: a moment later it is.
      if (row.status !== "pending" || waited >= 100) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Applies the policy stored for a running sandbox, after any apply of it still under way: each apply reads the
   * row when its turn comes, so the last one always enforces the newest policy (an apply that read the row
   * before a PATCH cannot undo it).
   */
  #applyStoredNetwork(id: string): Promise<void> {
    const { repo, executor } = this.#o;
    return this.#networkApplies.run(id, async () => {
      const row = await repo.get(id);
      if (!executor || !row || row.status !== "running" || row.executorId !== executor.id) return;
      await executor.updateNetwork(id, row.network);
    });
  }

  /**
   * Brings a running sandbox's mounts to what its row lists, in the background after an attach: each listed
   * mount is applied (one already in place is left). A file system or pinned snapshot that does not exist ends
   * the sandbox terminated with FileSystemNotFound or FileSystemSnapshotNotFound; a mount the sandbox cannot
   * take (its path is a file, say) is dropped from the row and logged. Applies of one sandbox run one at a time.
   */
  applyMounts(id: string): Promise<void> {
    return this.#mountApplies.run(id, async () => {
      const { repo, executor } = this.#o;
      await this.#settled(id);
      const row = await repo.get(id);
      const remote = row && this.#remote(row);
      if (remote) {
        await remote("mounts");
        return;
      }
      if (!executor || !row || row.status !== "running" || row.executorId !== executor.id) return;
      for (const mount of row.fileSystems) {
        // Ended meanwhile (deleted, timed out): nothing more to mount.
        if ((await repo.get(id))?.status !== "running") return;
        try {
          await mountOne(this.#o.resolveMount, executor, row, mount, false);
        } catch (error) {
          if (error instanceof ExecutorError) {
            await this.#terminate(row, { outcome: "failed", reason: error.reason, details: error.message });
            return;
          }
          this.#o.log("mount failed", { sandbox: id, path: mount.mount_path, error: String(error) });
          await repo.updateMounts(id, (current) => current.filter((m) => m.mount_path !== mount.mount_path));
        }
      }
    });
  }

  /** Unmounts a guest path of a running sandbox on this host (after the row stopped listing it). */
  async detachMount(row: SandboxRow, path: string): Promise<void> {
    const { executor } = this.#o;
    await this.#mountApplies.settled(row.id);
    const remote = this.#remote(row);
    if (remote) {
      await remote("unmount", { path });
      return;
    }
    if (!executor || row.status !== "running" || row.executorId !== executor.id) return;
    await executor.unmount(row.id, path);
  }

  /** The executor of a sandbox that runs here, or SANDBOX_BUSY for one that is not running here. */
  #localExecutor(row: SandboxRow): Executor {
    const { executor } = this.#o;
    if (!executor || row.executorId !== executor.id) {
      throw new ServiceError(
        "SANDBOX_BUSY",
        `the sandbox is ${row.status} and not on this server's executor`,
      );
    }
    return executor;
  }

  /**
   * Suspends a running sandbox: running → suspending → suspended, its processes frozen (no CPU; memory, files,
   * processes, PTY sessions and the network as they were). Already suspended: unchanged.
   */
  async suspend(row: SandboxRow): Promise<SandboxRow> {
    if (row.status === "suspended") return row;
    const remote = this.#remote(row);
    if (remote) return (await remote("suspend")) as SandboxRow;
    const executor = this.#localExecutor(row);
    const suspending = await this.#o.repo.transition(row.id, ["running"], { status: "suspending" });
    if (!suspending) throw new ServiceError("SANDBOX_BUSY", `the sandbox is ${row.status}, not running`);
    try {
      await executor.freeze(row.id);
    } catch (error) {
      await executor.thaw(row.id).catch(() => undefined);
      await this.#o.repo.transition(row.id, ["suspending"], { status: "running" });
      throw error;
    }
    return (await this.#o.repo.transition(row.id, ["suspending"], { status: "suspended" })) ?? suspending;
  }

  /** Resumes a suspended sandbox where it stopped: suspended → running. Already running: unchanged. */
  async resume(row: SandboxRow): Promise<SandboxRow> {
    if (row.status === "running") return row;
    const remote = this.#remote(row);
    if (remote) return (await remote("resume")) as SandboxRow;
    const executor = this.#localExecutor(row);
    if (row.status !== "suspended") throw new ServiceError("SANDBOX_BUSY", `the sandbox is ${row.status}`);
    await executor.thaw(row.id);
    const running = await this.#o.repo.transition(row.id, ["suspended"], { status: "running" });
    if (!running) throw new ServiceError("SANDBOX_BUSY", "the sandbox changed state while resuming");
    return running;
  }

  /**
   * Takes a filesystem snapshot of a running sandbox in the background: running → snapshotting (frozen while its
   * disk is copied) → running; the snapshot row ends completed or failed.
   */
  async snapshot(row: SandboxRow, snapshotId: string): Promise<void> {
    const remote = this.#remote(row);
    if (remote) {
      await remote("snapshot", { snapshotId });
      return;
    }
    const executor = this.#localExecutor(row);
    const { repo, snapshots } = this.#o;
    const taking = await repo.transition(row.id, ["running"], { status: "snapshotting" });
    if (!taking) throw new ServiceError("SANDBOX_BUSY", `the sandbox is ${row.status}, not running`);
    const work = (async () => {
      try {
        const taken = await executor.snapshot(row.id, snapshotId);
        // Pinned to the digest the sandbox's tree came from: a template of it never moves with the tag.
        await snapshots?.finish(snapshotId, {
          ...taken,
          pinnedImage: pinImage(row.image, taken.imageDigest),
        });
      } catch (error) {
        this.#o.log("snapshot failed", { sandbox: row.id, snapshot: snapshotId, error: String(error) });
        await snapshots?.finish(snapshotId, { error: (error as Error).message });
      } finally {
        await repo.transition(row.id, ["snapshotting"], { status: "running" });
      }
    })();
    this.#snapshotting.set(row.id, work);
    work.finally(() => this.#snapshotting.delete(row.id));
  }

  /** Resolves when the snapshot under way of a sandbox (if any) is done. */
  async snapshotSettled(id: string): Promise<void> {
    await this.#snapshotting.get(id);
  }

  /** The snapshots under way (stop waits for them). */
  snapshotsUnderWay(): Promise<void>[] {
    return [...this.#snapshotting.values()];
  }
}
