import { removeFromHost } from "./cleanup.ts";
import type { SchedulerSettings } from "./scheduler-options.ts";
import { LIVE_STATUSES } from "./status.ts";

/**
 * After a restart: running sandboxes of this executor that still answer (or whose daemon still runs) are adopted, the others end
 * terminated with a reason; sandboxes that were being started are cleaned up and queued again; snapshots the
 * restart interrupted end failed; anything on the host that belongs to no live sandbox is removed.
 */
export async function reconcile(settings: SchedulerSettings): Promise<void> {
  const { repo, executor, now, log } = settings;
  if (!executor || executor.unavailableReason()) return;
  const live = await repo.withStatus(LIVE_STATUSES);
  const keep = new Set<string>();
  for (const row of live) {
    if (row.executorId !== executor.id) continue;
    if (row.status === "pending") {
      await removeFromHost(executor, row.id, log);
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
    // A daemon whose process still runs but does not answer in time (a storm in the sandbox, a loaded host) is
    // busy, not gone: it is adopted, and liveness gives it daemonUnresponsiveSecs like any busy daemon.
    const busy =
      !alive &&
      row.containerId !== null &&
      ((await executor.daemonRunning?.(row.id).catch(() => false)) ?? false);
    if (busy) log("adopting a sandbox whose daemon runs but did not answer", { sandbox: row.id });
    if (alive || busy) {
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
    await removeFromHost(executor, row.id, log);
    await repo.transition(row.id, [row.status], {
      status: "terminated",
      terminationReason: "executor_lost",
      errorDetails: "the sandbox was no longer running when the server restarted",
      outcome: "failed",
      endedAt: now(),
    });
  }
  for (const snapshot of (await settings.snapshots?.inProgress()) ?? []) {
    // Several hosts: another executor's snapshot under way is its own.
    if (settings.cluster && (await repo.get(snapshot.sandboxId))?.executorId !== executor.id) continue;
    await settings.snapshots?.finish(snapshot.id, {
      error: "the server restarted while the snapshot was taken",
    });
    await executor.removeSnapshot(snapshot.id).catch(() => undefined);
  }
  for (const id of await executor.leftovers()) {
    if (!keep.has(id)) {
      log("removing leftovers of a sandbox", { sandbox: id });
      await removeFromHost(executor, id, log);
    }
  }
}
