import type { Executor } from "../executor/executor.ts";
import { removeFromHost } from "./cleanup.ts";
import { endIfDue, type Placement, type PlacementContext, refillPools } from "./placement.ts";
import type { SandboxRow } from "./repository.ts";
import type { ClusterScheduling } from "./scheduler-options.ts";
import { LIVE_STATUSES } from "./status.ts";

/**
 * Placement with several hosts. Every host with an executor removes what its sandboxes left after their rows
 * ended elsewhere (a DELETE or timeout served by another host, an executor_lost), and starts the sandboxes placed
 * on it. Hosts with the scheduler role end the sandboxes of executors whose heartbeat stopped, enforce timeouts
 * and max_pending_secs, and place pending sandboxes on the executor with the most free capacity.
 */
export class ClusterPlacement implements Placement {
  readonly #c: PlacementContext;
  readonly #cluster: ClusterScheduling;
  /** When this host's executor last swept what other hosts ended. */
  #lastSweep = 0;

  constructor(context: PlacementContext, cluster: ClusterScheduling) {
    this.#c = context;
    this.#cluster = cluster;
  }

  async pass(): Promise<void> {
    const { settings, starts, liveness } = this.#c;
    const cluster = this.#cluster;
    const { repo, executor, now } = settings;
    const local = executor && !executor.unavailableReason() ? executor : null;
    if (local && now() - this.#lastSweep >= (cluster.heartbeatMs ?? 2000)) {
      this.#lastSweep = now();
      await this.#sweep(local);
    }
    if (cluster.places) {
      await this.#endLostExecutors();
      await refillPools(settings);
    }
    const live = await repo.withStatus(LIVE_STATUSES);
    const t = now();
    await liveness.pass(local, live, t);
    if (cluster.places) await this.#placeAcrossHosts(live, t);
    // The sandboxes placed on this host: started here, a few at a time.
    if (!local) return;
    for (const row of live) {
      if (row.status !== "pending" || row.executorId !== local.id || starts.has(row.id)) continue;
      if (starts.full) break;
      starts.begin(local, row);
    }
  }

  /** Ends the sandboxes of executors whose heartbeat stopped (executor_lost). */
  async #endLostExecutors(): Promise<void> {
    const { registry, lostAfterMs } = this.#cluster;
    const { now, log } = this.#c.settings;
    const lostBefore = now() - lostAfterMs;
    for (const lost of await registry.stale(lostBefore)) {
      const ended = await registry.declareLost(lost.id, lostBefore);
      if (ended) log("an executor stopped its heartbeat", { executor: lost.id, ended });
    }
  }

  /** Timeouts, max_pending_secs, and placement of unplaced pending sandboxes on the executor with most room. */
  async #placeAcrossHosts(live: SandboxRow[], t: number): Promise<void> {
    const { repo, now, executor } = this.#c.settings;
    const { registry, lostAfterMs } = this.#cluster;
    const executors = await registry.alive(now() - lostAfterMs);
    for (const row of live) {
      if (await endIfDue(this.#c, row, t)) continue;
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
        if (await registry.place(row, candidate.id)) {
          candidate.usedCpus += row.cpus;
          candidate.usedMemoryMb += row.memoryMb;
          placed = true;
          if (candidate.id === executor?.id) this.#c.again();
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
    const { snapshots, repo } = this.#c.settings;
    const snapshot = await snapshots?.get(projectId, snapshotId);
    return snapshot ? ((await repo.get(snapshot.sandboxId))?.executorId ?? null) : null;
  }

  /**
   * Removes from this host the sandboxes whose rows ended (or moved) while they were here: their DELETE or
   * timeout was served by another host, or this executor was declared lost. A row that ended only moments ago is
   * left to the stop its own host is making.
   */
  async #sweep(executor: Executor): Promise<void> {
    const { repo, now, log } = this.#c.settings;
    const present = await executor.leftovers();
    if (present.length === 0) return;
    const grace = this.#cluster.sweepGraceMs ?? 5000;
    for (const id of present) {
      if (this.#c.starts.has(id)) continue;
      const row = await repo.get(id);
      const ours = row && row.status !== "terminated" && row.executorId === executor.id;
      if (ours) continue;
      if (row?.status === "terminated" && row.endedAt !== null && now() - row.endedAt < grace) continue;
      log("removing a sandbox whose row ended on another host", { sandbox: id });
      await removeFromHost(executor, id, log);
    }
  }
}
