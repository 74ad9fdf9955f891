import { type FileSystemMount, ServiceError } from "@svc/contract";
import { type Executor, ExecutorError } from "../executor/executor.ts";
import type { ExecutorRegistry } from "../hosts/registry.ts";
import type { ControlOp, SandboxDialer } from "../hosts/relay.ts";
import type { Logger } from "../log.ts";
import type { SandboxRepository, SandboxRow } from "./repository.ts";
import type { SnapshotRepository } from "./snapshots.ts";

/** Where a mount's tree is on this host, or why the mount cannot converge (the sandbox then ends with it). */
export type MountResolution =
  | { source: string }
  | { reason: "FileSystemNotFound" | "FileSystemSnapshotNotFound"; details: string };

/** Scheduling across several hosts (a PostgreSQL store): executors register and beat, placement picks among them. */
export interface ClusterScheduling {
  registry: ExecutorRegistry;
  /** This host places pending sandboxes, enforces timeouts and ends lost executors' sandboxes (the scheduler role). */
  places: boolean;
  /** This host's name (the executors table's host_id). */
  hostId: string;
  /** Where other hosts reach this host's relay (`host:port`), when it runs an executor. */
  relayAddress: string | null;
  /** An executor whose heartbeat is this old is lost. */
  lostAfterMs: number;
  /** How often this host's executor beats. */
  heartbeatMs?: number;
  /** How long after its row ended a sandbox still on this host is removed by the sweep (a stop under way finishes first). */
  sweepGraceMs?: number;
  /** Runs operations on the executor host of a sandbox that runs elsewhere (egress policy, mounts, suspend...). */
  dialer?: SandboxDialer;
}

export interface SchedulerOptions {
  repo: SandboxRepository;
  /** This host's executor; null when this server runs no sandboxes. */
  executor: Executor | null;
  secretOf: (sandboxId: string) => string;
  /** Longest lifetime; applies when a sandbox's timeout_secs is 0. 0 means none. */
  maxTimeoutSecs: number;
  log: Logger;
  now?: () => number;
  tickMs?: number;
  /** Sandboxes started at once. */
  startConcurrency?: number;
  /**
   * How often the daemons of running sandboxes are checked; one that fails twice ends `daemon_unreachable` when its
   * process is gone, or when it has not answered for `daemonUnresponsiveSecs` while its process still runs.
   */
  livenessIntervalMs?: number;
  /** How long a daemon whose process still runs may go unanswered (busy under a storm) before it is ended. */
  daemonUnresponsiveSecs?: number;
  /** Finds the tree of a file-system mount in the sandbox's project; without it, mounts cannot converge. */
  resolveMount?: (projectId: string, mount: FileSystemMount) => Promise<MountResolution>;
  /** Sandbox snapshots: the ones a restart interrupted end failed. */
  snapshots?: SnapshotRepository;
  /** Tops up warm pools (PoolKeeper.pass) at the start of each pass, so new warm sandboxes are placed in it. */
  keepPools?: (now: number) => Promise<unknown>;
  /** Several hosts: unset, this process's executor is the only one and placement is local. */
  cluster?: ClusterScheduling;
}

/**
 * Moves sandboxes through their lives: pending → an executor with capacity → running (or terminated with a
 * reason), timeouts, max_pending_secs, and after a restart, adoption or cleanup of what the last process left.
 * Every status change is a compare-and-set on the row, so a DELETE racing a start never leaves both half done.
 */
export class Scheduler {
  readonly #o: Required<
    Omit<SchedulerOptions, "executor" | "resolveMount" | "snapshots" | "keepPools" | "cluster">
  > &
    Pick<SchedulerOptions, "executor" | "resolveMount" | "snapshots" | "keepPools" | "cluster"> & {
      executor: Executor | null;
    };
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #again = false;
  #starting = new Map<string, Promise<void>>();
  #stopped = false;
  #lastLiveness = 0;
  /** Consecutive failed health checks of running sandboxes. */
  /** Running sandboxes whose daemon did not answer: failed checks in a row, and when the first failed. */
  #unanswered = new Map<string, { failures: number; since: number }>();
  /** The last apply of each sandbox's egress policy, queued one after another (see #applyStoredNetwork). */
  #networkApplies = new Map<string, Promise<void>>();
  /** Snapshots being taken, by sandbox. */
  #snapshotting = new Map<string, Promise<void>>();
  /** The last convergence of each sandbox's mounts, queued one after another (see applyMounts). */
  #mountApplies = new Map<string, Promise<void>>();
  /** When this host's executor last swept what other hosts ended (cluster mode). */
  #lastSweep = 0;
  #beating: NodeJS.Timeout | undefined;

  constructor(options: SchedulerOptions) {
    this.#o = {
      now: Date.now,
      tickMs: 250,
      startConcurrency: 4,
      livenessIntervalMs: 5000,
      daemonUnresponsiveSecs: 300,
      ...options,
    };
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

  /** Stops scheduling and waits for starts under way. Running sandboxes keep running, to be adopted later. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#beating);
    await this.#ticking;
    await Promise.allSettled([...this.#starting.values(), ...this.#snapshotting.values()]);
  }

  /** Waits for a sandbox's start under way, if any (DELETE waits for it before cleaning up). */
  async settled(id: string): Promise<void> {
    await this.#starting.get(id)?.catch(() => undefined);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.#tick(), this.#o.tickMs);
    this.#timer.unref();
  }

  #tick(): void {
    clearTimeout(this.#timer);
    this.#ticking = this.#pass()
      .catch((error) => this.#o.log("scheduling pass failed", { error: String(error) }))
      .finally(() => {
        this.#ticking = undefined;
        if (this.#again) {
          this.#again = false;
          this.#tick();
        } else this.#schedule();
      });
  }

  async #pass(): Promise<void> {
    if (this.#o.cluster) return this.#clusterPass(this.#o.cluster);
    const { repo, executor, now } = this.#o;
    await this.#o
      .keepPools?.(now())
      .catch((error) => this.#o.log("pool refill failed", { error: String(error) }));
    const live = await repo.withStatus(["pending", "running", "suspending", "suspended", "snapshotting"]);
    const t = now();
    const used = { cpus: 0, memoryMb: 0 };
    for (const row of live) {
      if (executor && row.executorId === executor.id) {
        used.cpus += row.cpus;
        used.memoryMb += row.memoryMb;
      }
    }
    if (executor && t - this.#lastLiveness >= this.#o.livenessIntervalMs) {
      this.#lastLiveness = t;
      const running = live.filter((row) => row.status === "running" && row.executorId === executor.id);
      await this.#checkLiveness(executor, running);
    }
    for (const row of live) {
      if (await this.#endIfDue(row, t)) continue;
      const reason = executor?.unavailableReason() ?? "no executor runs on this server";
      if (!executor || executor.unavailableReason()) {
        if (row.pendingReason !== "no_executors_available") {
          await repo.update(row.id, { pendingReason: "no_executors_available", errorDetails: reason });
        }
        continue;
      }
      const capacity = executor.capacity();
      const fits =
        used.cpus + row.cpus <= capacity.cpus + 1e-9 && used.memoryMb + row.memoryMb <= capacity.memoryMb;
      if (!fits || this.#starting.size >= this.#o.startConcurrency) {
        const pendingReason = fits ? "scheduling" : "no_resources_available";
        if (row.pendingReason !== pendingReason) await repo.update(row.id, { pendingReason });
        continue;
      }
      if (!(await repo.claim(row.id, executor.id))) continue;
      used.cpus += row.cpus;
      used.memoryMb += row.memoryMb;
      const starting = this.#startOne(executor, row).finally(() => {
        this.#starting.delete(row.id);
        this.wake();
      });
      this.#starting.set(row.id, starting);
    }
  }

  /**
   * One pass with several hosts. Every host with an executor beats, removes what its sandboxes left after their
   * rows ended elsewhere (a DELETE or timeout served by another host, an executor_lost), and starts the sandboxes
   * placed on it. Hosts with the scheduler role end the sandboxes of executors whose heartbeat stopped, enforce
   * timeouts and max_pending_secs, and place pending sandboxes on the executor with the most free capacity.
   */
  async #clusterPass(cluster: ClusterScheduling): Promise<void> {
    const { repo, executor, now } = this.#o;
    const local = executor && !executor.unavailableReason() ? executor : null;
    if (local && now() - this.#lastSweep >= (cluster.heartbeatMs ?? 2000)) {
      this.#lastSweep = now();
      await this.#sweep(local, cluster);
    }
    if (cluster.places) {
      const lostBefore = now() - cluster.lostAfterMs;
      for (const lost of await cluster.registry.stale(lostBefore)) {
        const ended = await cluster.registry.declareLost(lost.id, lostBefore);
        if (ended) this.#o.log("an executor stopped its heartbeat", { executor: lost.id, ended });
      }
      await this.#o
        .keepPools?.(now())
        .catch((error) => this.#o.log("pool refill failed", { error: String(error) }));
    }
    const live = await repo.withStatus(["pending", "running", "suspending", "suspended", "snapshotting"]);
    const t = now();
    if (local && t - this.#lastLiveness >= this.#o.livenessIntervalMs) {
      this.#lastLiveness = t;
      const running = live.filter((row) => row.status === "running" && row.executorId === local.id);
      await this.#checkLiveness(local, running);
    }
    if (cluster.places) await this.#placeAcrossHosts(cluster, live, t);
    // The sandboxes placed on this host: started here, a few at a time.
    if (!local) return;
    for (const row of live) {
      if (row.status !== "pending" || row.executorId !== local.id || this.#starting.has(row.id)) continue;
      if (this.#starting.size >= this.#o.startConcurrency) break;
      const starting = this.#startOne(local, row).finally(() => {
        this.#starting.delete(row.id);
        this.wake();
      });
      this.#starting.set(row.id, starting);
    }
  }

  /**
   * What every scheduling pass does before placement: a started sandbox past its timeout ends `timeout`, a
   * pending one past max_pending_secs ends `no_capacity`. True when the row needs no placement: it is not pending,
   * it is placed and being started, or it just ended.
   */
  async #endIfDue(row: SandboxRow, t: number): Promise<boolean> {
    if (row.status !== "pending") {
      // Wall-clock time since the start (a claimed pool sandbox: since the claim), time suspended included;
      // a snapshot under way finishes first; a pool's warm sandboxes wait unclaimed without a clock.
      if (row.warm) return true;
      const limit = row.timeoutSecs || this.#o.maxTimeoutSecs;
      const due = limit > 0 && row.startedAt !== null && t >= row.startedAt + limit * 1000;
      if (due && (row.status === "running" || row.status === "suspended")) {
        await this.terminate(row, { outcome: "timeout" });
      }
      return true;
    }
    if (row.executorId) return true; // placed, being started
    if (!row.maxPendingSecs || t < row.createdAt + row.maxPendingSecs * 1000) return false;
    await this.#o.repo.transition(row.id, ["pending"], {
      status: "terminated",
      terminationReason: "no_capacity",
      errorDetails: `no host had room for the sandbox within max_pending_secs (${row.maxPendingSecs} s)`,
      outcome: "failed",
      endedAt: t,
    });
    return true;
  }

  /** Timeouts, max_pending_secs, and placement of unplaced pending sandboxes on the executor with most room. */
  async #placeAcrossHosts(cluster: ClusterScheduling, live: SandboxRow[], t: number): Promise<void> {
    const { repo, now } = this.#o;
    const executors = await cluster.registry.alive(now() - cluster.lostAfterMs);
    for (const row of live) {
      if (await this.#endIfDue(row, t)) continue;
      if (executors.length === 0) {
        if (row.pendingReason !== "no_executors_available") {
          await repo.update(row.id, {
            pendingReason: "no_executors_available",
            errorDetails: "no executor host is registered with a live heartbeat",
          });
        }
        continue;
      }
      const free = (e: (typeof executors)[number]) => ({
        cpus: e.cpus - e.usedCpus,
        memoryMb: e.memoryMb - e.usedMemoryMb,
      });
      // A snapshot's disk is on the executor host that took it: a sandbox started from one goes there.
      const pinned = row.snapshotId ? await this.#snapshotHost(row.projectId, row.snapshotId) : null;
      const candidates = executors
        .filter((e) => !pinned || e.id === pinned)
        .filter((e) => free(e).cpus + 1e-9 >= row.cpus && free(e).memoryMb >= row.memoryMb)
        .sort((a, b) => free(b).cpus - free(a).cpus || free(b).memoryMb - free(a).memoryMb);
      let placed = false;
      for (const candidate of candidates) {
        if (await cluster.registry.place(row, candidate.id)) {
          candidate.usedCpus += row.cpus;
          candidate.usedMemoryMb += row.memoryMb;
          placed = true;
          if (candidate.id === this.#o.executor?.id) this.#again = true;
          break;
        }
        // Taken by another scheduler, or the executor filled up meanwhile: the next candidate.
        if ((await repo.get(row.id))?.executorId) {
          placed = true;
          break;
        }
      }
      if (!placed && row.pendingReason !== "no_resources_available") {
        await repo.update(row.id, { pendingReason: "no_resources_available" });
      }
    }
  }

  /** The executor that took a snapshot (its disk is there), or null when that is not known. */
  async #snapshotHost(projectId: string, snapshotId: string): Promise<string | null> {
    const snapshot = await this.#o.snapshots?.get(projectId, snapshotId);
    return snapshot ? ((await this.#o.repo.get(snapshot.sandboxId))?.executorId ?? null) : null;
  }

  /**
   * Removes from this host the sandboxes whose rows ended (or moved) while they were here: their DELETE or
   * timeout was served by another host, or this executor was declared lost. A row that ended only moments ago is
   * left to the stop its own host is making.
   */
  async #sweep(executor: Executor, cluster: ClusterScheduling): Promise<void> {
    const { repo, now } = this.#o;
    const present = await executor.leftovers();
    if (present.length === 0) return;
    const grace = cluster.sweepGraceMs ?? 5000;
    for (const id of present) {
      if (this.#starting.has(id)) continue;
      const row = await repo.get(id);
      const ours = row && row.status !== "terminated" && row.executorId === executor.id;
      if (ours) continue;
      if (row?.status === "terminated" && row.endedAt !== null && now() - row.endedAt < grace) continue;
      this.#o.log("removing a sandbox whose row ended on another host", { sandbox: id });
      await this.#cleanup(executor, id);
    }
  }

  async #startOne(executor: Executor, row: SandboxRow): Promise<void> {
    const { repo, now } = this.#o;
    let reported: string | undefined;
    const beganAt = now();
    try {
      const started = await executor.start({
        id: row.id,
        name: row.name,
        image: row.image,
        cpus: row.cpus,
        memoryMb: row.memoryMb,
        diskMb: row.diskMb,
        entrypoint: row.entrypoint,
        network: row.network,
        authSecret: this.#o.secretOf(row.id),
        snapshotId: row.snapshotId ?? row.templateId,
        // The record says why a first start takes a minute or two (the CLI shows it).
        onProgress: (stage) => {
          if (reported === stage) return;
          reported = stage;
          void repo.update(row.id, { pendingReason: stage }).catch(() => undefined);
        },
      });
      // Mounts given at create: in place before the sandbox is reported running; one that cannot converge
      // ends the sandbox with its typed reason.
      for (const mount of row.fileSystems) await this.#mountOne(executor, row, mount, true);
      // Several hosts: this executor may have been declared lost meanwhile and the sandbox placed again.
      if (this.#o.cluster && (await repo.get(row.id))?.executorId !== executor.id) {
        await executor.stop(row.id);
        return;
      }
      const running = await repo.transition(row.id, ["pending"], {
        status: "running",
        pendingReason: null,
        errorDetails: null,
        containerId: started.containerId,
        address: started.address,
        netIndex: started.netIndex,
        startedAt: now(),
        startTimeline: started.timeline ?? { beganAt, steps: [] },
      });
      // Deleted while it was starting: what was built goes away again.
      if (!running) await executor.stop(row.id);
    } catch (error) {
      await executor.stop(row.id).catch(() => undefined);
      const typed = error instanceof ExecutorError;
      this.#o.log("sandbox start failed", { sandbox: row.id, error: String(error) });
      await repo.transition(row.id, ["pending"], {
        status: "terminated",
        pendingReason: null,
        terminationReason: typed ? error.reason : "start_failed",
        errorDetails: (error as Error).message,
        outcome: "failed",
        endedAt: now(),
        startTimeline: { beganAt, steps: [] },
      });
    }
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
      await this.settled(id);
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
    const previous = this.#networkApplies.get(id) ?? Promise.resolve();
    const turn = previous
      .catch(() => undefined)
      .then(async () => {
        const row = await repo.get(id);
        if (!executor || !row || row.status !== "running" || row.executorId !== executor.id) return;
        await executor.updateNetwork(id, row.network);
      });
    this.#networkApplies.set(id, turn);
    const forget = () => {
      if (this.#networkApplies.get(id) === turn) this.#networkApplies.delete(id);
    };
    turn.then(forget, forget);
    return turn;
  }

  /** Resolves one mount and applies it; `strict` makes any failure an ExecutorError (a start in progress). */
  async #mountOne(
    executor: Executor,
    row: SandboxRow,
    mount: FileSystemMount,
    strict: boolean,
  ): Promise<void> {
    const resolved: MountResolution = this.#o.resolveMount
      ? await this.#o.resolveMount(row.projectId, mount)
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

  /**
   * Brings a running sandbox's mounts to what its row lists, in the background after an attach: each listed
   * mount is applied (one already in place is left). A file system or pinned snapshot that does not exist ends
   * the sandbox terminated with FileSystemNotFound or FileSystemSnapshotNotFound; a mount the sandbox cannot
   * take (its path is a file, say) is dropped from the row and logged. Applies of one sandbox run one at a time.
   */
  applyMounts(id: string): Promise<void> {
    const previous = this.#mountApplies.get(id) ?? Promise.resolve();
    const turn = previous
      .catch(() => undefined)
      .then(async () => {
        const { repo, executor } = this.#o;
        await this.settled(id);
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
            await this.#mountOne(executor, row, mount, false);
          } catch (error) {
            if (error instanceof ExecutorError) {
              await this.terminate(row, { outcome: "failed", reason: error.reason, details: error.message });
              return;
            }
            this.#o.log("mount failed", { sandbox: id, path: mount.mount_path, error: String(error) });
            await repo.updateMounts(id, (current) =>
              current.filter((m) => m.mount_path !== mount.mount_path),
            );
          }
        }
      });
    this.#mountApplies.set(id, turn);
    const forget = () => {
      if (this.#mountApplies.get(id) === turn) this.#mountApplies.delete(id);
    };
    turn.then(forget, forget);
    return turn;
  }

  /** Unmounts a guest path of a running sandbox on this host (after the row stopped listing it). */
  async detachMount(row: SandboxRow, path: string): Promise<void> {
    const { executor } = this.#o;
    await this.#mountApplies.get(row.id)?.catch(() => undefined);
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
        await snapshots?.finish(snapshotId, await executor.snapshot(row.id, snapshotId));
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

  /** Makes a template's disk on this host's executor (a server without one cannot). */
  async buildTemplateDisk(templateId: string, tarFile: string): Promise<{ sizeBytes: number }> {
    const { executor } = this.#o;
    if (!executor || executor.unavailableReason()) {
      throw new ServiceError(
        "NOT_IMPLEMENTED",
        "this server runs no sandboxes, so it cannot make template disks",
      );
    }
    return executor.buildTemplateDisk(templateId, tarFile);
  }

  /** Removes a snapshot's disk from this host's executor. */
  async removeSnapshot(snapshotId: string): Promise<void> {
    await this.#o.executor?.removeSnapshot(snapshotId);
  }

  /** Resolves when the snapshot under way of a sandbox (if any) is done. */
  async snapshotSettled(id: string): Promise<void> {
    await this.#snapshotting.get(id);
  }

  /**
   * Ends a sandbox: the row becomes terminated first (so the proxy stops routing to it), then the executor
   * removes it. Idempotent; a pending sandbox ends `cancelled`.
   */
  async terminate(
    row: SandboxRow,
    how: { outcome: string; reason?: string; details?: string },
  ): Promise<SandboxRow> {
    const { repo, executor, now } = this.#o;
    const fields =
      row.status === "pending"
        ? { terminationReason: "cancelled", errorDetails: "deleted while pending", outcome: "cancelled" }
        : {
            outcome: how.outcome,
            ...(how.reason ? { terminationReason: how.reason, errorDetails: how.details ?? null } : {}),
          };
    const ended = await repo.transition(
      row.id,
      ["pending", "running", "suspended", "suspending", "snapshotting"],
      {
        status: "terminated",
        pendingReason: null,
        endedAt: now(),
        ...fields,
      },
    );
    if (!ended) return (await repo.get(row.id)) ?? row;
    await this.settled(row.id);
    if (executor && row.executorId === executor.id) {
      // Frozen processes take a kill only once thawed (on hosts without cgroup.kill).
      if (row.status !== "pending" && row.status !== "running")
        await executor.thaw(row.id).catch(() => undefined);
      await executor
        .stop(row.id)
        .catch((error) => this.#o.log("sandbox stop failed", { sandbox: row.id, error: String(error) }));
    }
    this.wake();
    return ended;
  }

  /**
   * A running sandbox whose daemon stops answering (it was killed, or its processes were) must not stay
   * `running` forever: after two failed checks in a row it ends terminated, `daemon_unreachable`, and its
   * resources are removed.
   */
  async #checkLiveness(executor: Executor, running: SandboxRow[]): Promise<void> {
    const seen = new Set(running.map((row) => row.id));
    for (const id of this.#unanswered.keys()) if (!seen.has(id)) this.#unanswered.delete(id);
    const results = await Promise.all(
      running.map(async (row) => ({
        row,
        alive:
          row.containerId === null ||
          row.address === null ||
          (await executor.isAlive(row.id, {
            containerId: row.containerId,
            address: row.address,
            netIndex: row.netIndex,
          })),
      })),
    );
    for (const { row, alive } of results) {
      if (alive) {
        this.#unanswered.delete(row.id);
        continue;
      }
      const now = this.#o.now();
      const entry = this.#unanswered.get(row.id) ?? { failures: 0, since: now };
      entry.failures++;
      this.#unanswered.set(row.id, entry);
      if (entry.failures < 2) continue;
      // A daemon whose process still runs is busy (a storm in the sandbox takes its CPU), not gone: it gets
      // daemonUnresponsiveSecs before the sandbox is given up.
      const stillRuns = (await executor.daemonRunning?.(row.id).catch(() => false)) ?? false;
      const silentSecs = Math.round((now - entry.since) / 1000);
      if (stillRuns && now - entry.since < this.#o.daemonUnresponsiveSecs * 1000) {
        if (entry.failures === 2) {
          this.#o.log("a sandbox's daemon is busy: it runs but does not answer", { sandbox: row.id });
        }
        continue;
      }
      this.#unanswered.delete(row.id);
      const ended = await this.#o.repo.transition(row.id, ["running"], {
        status: "terminated",
        terminationReason: "daemon_unreachable",
        errorDetails: stillRuns
          ? `the sandbox's daemon runs but has not answered its health checks for ${silentSecs} s`
          : "the sandbox's daemon stopped answering its health checks: its process is gone",
        outcome: "failed",
        endedAt: this.#o.now(),
      });
      if (ended) {
        this.#o.log("ended a sandbox whose daemon stopped answering", { sandbox: row.id });
        await this.#cleanup(executor, row.id);
      }
    }
  }

  /** Removes a sandbox from the host; a failure is logged (its leftovers are found again at the next start). */
  async #cleanup(executor: Executor, id: string): Promise<void> {
    try {
      await executor.stop(id);
    } catch (error) {
      this.#o.log("sandbox cleanup failed", { sandbox: id, error: String(error) });
    }
  }

  /**
   * After a restart: running sandboxes of this executor that still answer are adopted, the others end
   * terminated with a reason; sandboxes that were being started are cleaned up and queued again; anything
   * on the host that belongs to no live sandbox is removed.
   */
  async reconcile(): Promise<void> {
    const { repo, executor, now, log } = this.#o;
    if (!executor || executor.unavailableReason()) return;
    const live = await repo.withStatus(["pending", "running", "suspended", "suspending", "snapshotting"]);
    const keep = new Set<string>();
    for (const row of live) {
      if (row.executorId !== executor.id) continue;
      if (row.status === "pending") {
        await this.#cleanup(executor, row.id);
        await repo.update(row.id, { executorId: null, pendingReason: "scheduling" });
        log("requeued a sandbox whose start was interrupted", { sandbox: row.id });
        continue;
      }
      // A frozen daemon answers nothing: thawed to be checked, and frozen again when it was suspended(ing).
      const frozen = row.status !== "running";
      if (frozen) await executor.thaw(row.id).catch(() => undefined);
      const alive =
        row.containerId !== null &&
        row.address !== null &&
        (await executor.isAlive(row.id, {
          containerId: row.containerId,
          address: row.address,
          netIndex: row.netIndex,
        }));
      if (alive) {
        keep.add(row.id);
        if (row.status === "suspended" || row.status === "suspending") {
          await executor.freeze(row.id);
          if (row.status === "suspending")
            await repo.transition(row.id, ["suspending"], { status: "suspended" });
        } else if (row.status === "snapshotting") {
          // The copy was interrupted with the server: the sandbox goes on, the snapshot failed (below).
          await repo.transition(row.id, ["snapshotting"], { status: "running" });
        }
        // Its policy again: the name server that follows it lives in this process.
        await executor
          .updateNetwork(row.id, row.network)
          .catch((error) =>
            log("egress policy of an adopted sandbox failed", { sandbox: row.id, error: String(error) }),
          );
        log("adopted a sandbox", { sandbox: row.id, status: row.status });
        continue;
      }
      await this.#cleanup(executor, row.id);
      await repo.transition(row.id, [row.status], {
        status: "terminated",
        terminationReason: "executor_lost",
        errorDetails: "the sandbox was no longer running when the server restarted",
        outcome: "failed",
        endedAt: now(),
      });
    }
    for (const snapshot of (await this.#o.snapshots?.inProgress()) ?? []) {
      // Several hosts: another executor's snapshot under way is its own.
      if (this.#o.cluster && (await repo.get(snapshot.sandboxId))?.executorId !== executor.id) continue;
      await this.#o.snapshots?.finish(snapshot.id, {
        error: "the server restarted while the snapshot was taken",
      });
      await executor.removeSnapshot(snapshot.id).catch(() => undefined);
    }
    for (const id of await executor.leftovers()) {
      if (!keep.has(id)) {
        log("removing leftovers of a sandbox", { sandbox: id });
        await this.#cleanup(executor, id);
      }
    }
  }
}
