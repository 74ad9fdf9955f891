import { ServiceError } from "@svc/contract";
import type { ControlOp } from "../hosts/relay.ts";
import { removeFromHost } from "./cleanup.ts";
import { ClusterPlacement } from "./cluster-placement.ts";
import { Liveness } from "./liveness.ts";
import { LiveOperations } from "./operations.ts";
import type { Placement } from "./placement.ts";
import { reconcile } from "./reconciler.ts";
import type { SandboxRow } from "./repository.ts";
import type { Ending, SchedulerOptions, SchedulerSettings } from "./scheduler-options.ts";
import { SingleHostPlacement } from "./single-host-placement.ts";
import { Starts } from "./starts.ts";
import { LIVE_STATUSES } from "./status.ts";

export type { MountResolution } from "./mount-resolution.ts";
export type { ClusterScheduling, SchedulerOptions } from "./scheduler-options.ts";

/**
 * Moves sandboxes through their lives: pending → an executor with capacity → running (or terminated with a
 * reason), timeouts, max_pending_secs, and after a restart, adoption or cleanup of what the last process left.
 * Every status change is a compare-and-set on the row, so a DELETE racing a start never leaves both half done.
 *
 * This class runs the passes and ends sandboxes; the jobs are its parts: a placement (single-host or cluster),
 * the starts under way, the liveness checks, the operations on live sandboxes and the reconciler.
 */
export class Scheduler {
  readonly #o: SchedulerSettings;
  readonly #starts: Starts;
  readonly #placement: Placement;
  readonly #operations: LiveOperations;
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #beating: NodeJS.Timeout | undefined;
  /** Sandboxes being ended (row terminated, the executor removing them): stop() waits for them. */
  readonly #ending = new Set<Promise<SandboxRow>>();

  constructor(options: SchedulerOptions) {
    this.#o = {
      now: Date.now,
      tickMs: 250,
      startConcurrency: 4,
      livenessIntervalMs: 5000,
      daemonUnresponsiveSecs: 300,
      ...options,
    };
    this.#starts = new Starts(this.#o, () => this.wake());
    const terminate = (row: SandboxRow, how: Ending) => this.terminate(row, how);
    const context = {
      settings: this.#o,
      starts: this.#starts,
      liveness: new Liveness(this.#o),
      terminate,
      again: () => {
        this.#again = true;
      },
    };
    this.#placement = this.#o.cluster
      ? new ClusterPlacement(context, this.#o.cluster)
      : new SingleHostPlacement(context);
    this.#operations = new LiveOperations(this.#o, (id) => this.settled(id), terminate);
  }

  /** Adopts or cleans up what a previous process left, then schedules until stop(). */
  async start(): Promise<void> {
    await this.reconcile();
    await this.#beat();
    // Heartbeats on a timer of their own, so a long pass (slow health checks) never makes this executor look lost.
    const { cluster, executor } = this.#o;
    if (cluster && executor && !executor.unavailableReason()) {
      this.#beating = setInterval(() => {
        this.#beat().catch((error) => this.#o.log("heartbeat failed", { error: String(error) }));
      }, cluster.heartbeatMs ?? 2000);
      this.#beating.unref();
    }
    this.#schedule();
  }

  /** Registers this host's executor with a fresh heartbeat (cluster mode, an executor that can run sandboxes). */
  async #beat(): Promise<void> {
    const { cluster, executor } = this.#o;
    if (!cluster || !executor || executor.unavailableReason() || this.#stopped) return;
    await cluster.registry.register({
      id: executor.id,
      hostId: cluster.hostId,
      relayAddress: cluster.relayAddress,
      ...executor.capacity(),
    });
  }

  /** Runs a scheduling pass soon (after a create or delete). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#ticking) this.#again = true;
    else this.#tick();
  }

  /**
   * Stops scheduling and waits for starts, snapshots and ends under way: a sandbox whose row already says
   * terminated is removed from the host before the server exits. Running sandboxes keep running, to be adopted
   * later.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#beating);
    await this.#ticking;
    await Promise.allSettled([
      ...this.#starts.underWay(),
      ...this.#operations.snapshotsUnderWay(),
      ...this.#ending,
    ]);
  }

  /** Waits for a sandbox's start under way, if any (DELETE waits for it before cleaning up). */
  async settled(id: string): Promise<void> {
    await this.#starts.settled(id);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.#tick(), this.#o.tickMs);
    this.#timer.unref();
  }

  #tick(): void {
    clearTimeout(this.#timer);
    this.#ticking = this.#placement
      .pass()
      .catch((error) => this.#o.log("scheduling pass failed", { error: String(error) }))
      .finally(() => {
        this.#ticking = undefined;
        if (this.#again) {
          this.#again = false;
          this.#tick();
        } else this.#schedule();
      });
  }

  /** Serves an operation another host forwarded for a sandbox of this host's executor (the relay's control). */
  control(op: ControlOp, id: string, args: Record<string, unknown>): Promise<unknown> {
    return this.#operations.control(op, id, args);
  }

  /** Applies a sandbox's stored egress policy to its live firewall (LiveOperations.applyNetwork). */
  applyNetwork(id: string): Promise<void> {
    return this.#operations.applyNetwork(id);
  }

  /** Brings a running sandbox's mounts to what its row lists, in the background (LiveOperations.applyMounts). */
  applyMounts(id: string): Promise<void> {
    return this.#operations.applyMounts(id);
  }

  /** Unmounts a guest path of a running sandbox (after the row stopped listing it). */
  detachMount(row: SandboxRow, path: string): Promise<void> {
    return this.#operations.detachMount(row, path);
  }

  /** Suspends a running sandbox (LiveOperations.suspend). */
  suspend(row: SandboxRow): Promise<SandboxRow> {
    return this.#operations.suspend(row);
  }

  /** Resumes a suspended sandbox (LiveOperations.resume). */
  resume(row: SandboxRow): Promise<SandboxRow> {
    return this.#operations.resume(row);
  }

  /** Takes a filesystem snapshot of a running sandbox in the background (LiveOperations.snapshot). */
  snapshot(row: SandboxRow, snapshotId: string): Promise<void> {
    return this.#operations.snapshot(row, snapshotId);
  }

  /** Resolves when the snapshot under way of a sandbox (if any) is done. */
  snapshotSettled(id: string): Promise<void> {
    return this.#operations.snapshotSettled(id);
  }

  /** Makes a template's disk on this host's executor (a server without one cannot). */
  async buildTemplateDisk(
    templateId: string,
    tarFile: string,
    image?: { image: string | null; projectId: string },
  ): Promise<{ sizeBytes: number; imageDigest: string | null }> {
    const { executor } = this.#o;
    if (!executor || executor.unavailableReason()) {
      throw new ServiceError(
        "NOT_IMPLEMENTED",
        "this server runs no sandboxes, so it cannot make template disks",
      );
    }
    return executor.buildTemplateDisk(templateId, tarFile, image);
  }

  /** Removes a snapshot's disk from this host's executor. */
  async removeSnapshot(snapshotId: string): Promise<void> {
    await this.#o.executor?.removeSnapshot(snapshotId);
  }

  /**
   * Ends a sandbox: the row becomes terminated first (so the proxy stops routing to it), then the executor
   * removes it. Idempotent; a pending sandbox ends `cancelled`.
   */
  terminate(row: SandboxRow, how: Ending): Promise<SandboxRow> {
    // Registered before the first await, so a stop() that begins meanwhile waits for this end.
    const ending = this.#end(row, how);
    this.#ending.add(ending);
    const forget = () => this.#ending.delete(ending);
    ending.then(forget, forget);
    return ending;
  }

  async #end(row: SandboxRow, how: Ending): Promise<SandboxRow> {
    const { repo, executor, now } = this.#o;
    const fields: Partial<SandboxRow> =
      row.status === "pending"
        ? { terminationReason: "cancelled", errorDetails: "deleted while pending", outcome: "cancelled" }
        : {
            outcome: how.outcome,
            ...(how.reason ? { terminationReason: how.reason, errorDetails: how.details ?? null } : {}),
          };
    const ended = await repo.transition(row.id, LIVE_STATUSES, {
      status: "terminated",
      pendingReason: null,
      endedAt: now(),
      ...fields,
    });
    if (!ended) return (await repo.get(row.id)) ?? row;
    await this.settled(row.id);
    if (executor && row.executorId === executor.id) {
      // Frozen processes take a kill only once thawed (on hosts without cgroup.kill).
      if (row.status !== "pending" && row.status !== "running")
        await executor.thaw(row.id).catch(() => undefined);
      await removeFromHost(executor, row.id, this.#o.log);
    }
    this.wake();
    return ended;
  }

  /** Adopts or cleans up what a previous process left on this host (see reconciler.ts). */
  reconcile(): Promise<void> {
    return reconcile(this.#o);
  }
}
