import type { Executor } from "../executor/executor.ts";
import type { Logger } from "../log.ts";

/** Removes a sandbox from the host; a failure is logged (its leftovers are found again at the next start). */
export async function removeFromHost(executor: Executor, id: string, log: Logger): Promise<void> {
  try {
    await executor.stop(id);
  } catch (error) {
    log("sandbox cleanup failed", { sandbox: id, error: String(error) });
  }
}
