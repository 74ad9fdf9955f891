import type { Executor } from "../executor/executor.ts";
import { removeFromHost } from "./cleanup.ts";
import type { SandboxRow } from "./repository.ts";
import type { SchedulerSettings } from "./scheduler-options.ts";

/**
 * A running sandbox whose daemon stops answering (it was killed, or its processes were) must not stay `running`
 * forever: after two failed checks in a row it ends terminated, `daemon_unreachable`, and its resources are
 * removed. A daemon whose process still runs gets daemonUnresponsiveSecs first.
 */
export class Liveness {
  readonly #o: SchedulerSettings;
  #last = 0;
  /** Running sandboxes whose daemon did not answer: failed checks in a row, and when the first failed. */
  readonly #unanswered = new Map<string, { failures: number; since: number }>();

  constructor(settings: SchedulerSettings) {
    this.#o = settings;
  }

  /** Checks the running sandboxes of `executor` among `live`, once every livenessIntervalMs (a pass's step). */
  async pass(executor: Executor | null, live: SandboxRow[], t: number): Promise<void> {
    if (!executor || t - this.#last < this.#o.livenessIntervalMs) return;
    this.#last = t;
    const running = live.filter((row) => row.status === "running" && row.executorId === executor.id);
    await this.#check(executor, running);
  }

  async #check(executor: Executor, running: SandboxRow[]): Promise<void> {
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
        await removeFromHost(executor, row.id, this.#o.log);
      }
    }
  }
}
