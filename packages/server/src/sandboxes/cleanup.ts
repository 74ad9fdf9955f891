import type { Executor } from "../executor/executor.ts";
import type { Logger } from "../log.ts";

/** How many times a sandbox's removal from the host is tried before it is left to the next start. */
const STOP_ATTEMPTS = 3;

/**
 * Removes a sandbox from the host, trying again when a step fails (a kill that timed out on a loaded host; each
 * step of the executor's stop is idempotent), with a thaw in between since frozen processes die only once thawed.
 * What still fails is logged: the next start's reconciliation finds its leftovers again.
 */
export async function removeFromHost(executor: Executor, id: string, log: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await executor.stop(id);
      return;
    } catch (error) {
      log("sandbox cleanup failed", { sandbox: id, attempt, error: String(error) });
      if (attempt >= STOP_ATTEMPTS) return;
      await executor.thaw(id).catch(() => undefined);
    }
  }
}
