import { endIfDue, type Placement, type PlacementContext, refillPools } from "./placement.ts";
import { LIVE_STATUSES } from "./status.ts";

/**
 * Placement when this process's executor is the only one: a pending sandbox is claimed and started here when it
 * fits in what the live sandboxes leave of the executor's capacity, a few starts at a time.
 */
export class SingleHostPlacement implements Placement {
  readonly #c: PlacementContext;

  constructor(context: PlacementContext) {
    this.#c = context;
  }

  async pass(): Promise<void> {
    const { settings, starts, liveness } = this.#c;
    const { repo, executor, now } = settings;
    await refillPools(settings);
    const live = await repo.withStatus(LIVE_STATUSES);
    const t = now();
    const used = { cpus: 0, memoryMb: 0 };
    for (const row of live) {
      if (executor && row.executorId === executor.id) {
        used.cpus += row.cpus;
        used.memoryMb += row.memoryMb;
      }
    }
    await liveness.pass(executor, live, t);
    for (const row of live) {
      if (await endIfDue(this.#c, row, t)) continue;
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
      if (!fits || starts.full) {
        const pendingReason = fits ? "scheduling" : "no_resources_available";
        if (row.pendingReason !== pendingReason) await repo.update(row.id, { pendingReason });
        continue;
      }
      if (!(await repo.claim(row.id, executor.id))) continue;
      used.cpus += row.cpus;
      used.memoryMb += row.memoryMb;
      starts.begin(executor, row);
    }
  }
}
