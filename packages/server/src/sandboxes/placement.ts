import type { Liveness } from "./liveness.ts";
import type { SandboxRow } from "./repository.ts";
import type { SchedulerSettings, Terminate } from "./scheduler-options.ts";
import type { Starts } from "./starts.ts";

/**
 * One scheduling pass: where pending sandboxes go and which start on this host. Two versions share this
 * interface: SingleHostPlacement (this process's executor is the only one) and ClusterPlacement (executors
 * registered by several hosts in a shared store).
 */
export interface Placement {
  pass(): Promise<void>;
}

/** What both placements use: the settings, this host's starts and liveness checks, and the scheduler's hooks. */
export interface PlacementContext {
  settings: SchedulerSettings;
  starts: Starts;
  liveness: Liveness;
  terminate: Terminate;
  /** Runs another pass right after this one (a sandbox was placed on this host). */
  again: () => void;
}

/** Tops up warm pools first, so the warm sandboxes it adds are placed in the same pass; a failure is logged. */
export async function refillPools(settings: SchedulerSettings): Promise<void> {
  await settings
    .keepPools?.(settings.now())
    .catch((error) => settings.log("pool refill failed", { error: String(error) }));
}

/**
 * What every placement does before placing: a started sandbox past its timeout ends `timeout`, a pending one past
 * max_pending_secs ends `no_capacity`. True when the row needs no placement: it is not pending, it is placed and
 * being started, or it just ended.
 */
export async function endIfDue(context: PlacementContext, row: SandboxRow, t: number): Promise<boolean> {
  const { settings } = context;
  if (row.status !== "pending") {
    // Wall-clock time since the start (a claimed pool sandbox: since the claim), time suspended included;
    // a snapshot under way finishes first; a pool's warm sandboxes wait unclaimed without a clock.
    if (row.warm) return true;
    const limit = row.timeoutSecs || settings.maxTimeoutSecs;
    const due = limit > 0 && row.startedAt !== null && t >= row.startedAt + limit * 1000;
    if (due && (row.status === "running" || row.status === "suspended")) {
      await context.terminate(row, { outcome: "timeout" });
    }
    return true;
  }
  if (row.executorId) return true; // placed, being started
  if (!row.maxPendingSecs || t < row.createdAt + row.maxPendingSecs * 1000) return false;
  await settings.repo.transition(row.id, ["pending"], {
    status: "terminated",
    terminationReason: "no_capacity",
    errorDetails: `no host had room for the sandbox within max_pending_secs (${row.maxPendingSecs} s)`,
    outcome: "failed",
    endedAt: t,
  });
  return true;
}
