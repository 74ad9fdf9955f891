import { type Executor, ExecutorError } from "../executor/executor.ts";
import { mountOne } from "./mount-resolution.ts";
import type { SandboxRow } from "./repository.ts";
import type { SchedulerSettings } from "./scheduler-options.ts";

/**
 * The sandboxes this host's executor is starting: each start is one pending row made running (or terminated with
 * its reason). Both placements begin starts here, so the bookkeeping (a few at a time, a pass after each) is one.
 */
export class Starts {
  readonly #o: SchedulerSettings;
  readonly #onDone: () => void;
  readonly #starting = new Map<string, Promise<void>>();

  /** `onDone` runs after each start ends (a new pass, for the room it left or took). */
  constructor(settings: SchedulerSettings, onDone: () => void) {
    this.#o = settings;
    this.#onDone = onDone;
  }

  /** Starts under way. */
  get size(): number {
    return this.#starting.size;
  }

  /** No more starts may begin now (startConcurrency). */
  get full(): boolean {
    return this.#starting.size >= this.#o.startConcurrency;
  }

  has(id: string): boolean {
    return this.#starting.has(id);
  }

  /** Starts a claimed pending sandbox on the executor, in the background. */
  begin(executor: Executor, row: SandboxRow): void {
    const starting = this.#startOne(executor, row).finally(() => {
      this.#starting.delete(row.id);
      this.#onDone();
    });
    this.#starting.set(row.id, starting);
  }

  /** Waits for a sandbox's start under way, if any (DELETE waits for it before cleaning up). */
  async settled(id: string): Promise<void> {
    await this.#starting.get(id)?.catch(() => undefined);
  }

  /** The starts under way (stop waits for them). */
  underWay(): Promise<void>[] {
    return [...this.#starting.values()];
  }

  async #startOne(executor: Executor, row: SandboxRow): Promise<void> {
    const { repo, now } = this.#o;
    let reported: string | undefined;
    const beganAt = now();
    try {
      const started = await executor.start({
        id: row.id,
        projectId: row.projectId,
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
      for (const mount of row.fileSystems) await mountOne(this.#o.resolveMount, executor, row, mount, true);
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
}
