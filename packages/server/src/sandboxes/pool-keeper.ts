import type { PoolRepository, PoolRow } from "./pools.ts";
import { type NewSandbox, pendingSandbox, type SandboxRepository, type SandboxRow } from "./repository.ts";

/** A pool whose warm sandboxes failed to start within this long waits this long before it tries again. */
const FAILURE_BACKOFF_MS = 30_000;
/** Pools are looked at no more often than this. */
const PASS_INTERVAL_MS = 1000;

/** A pool's sandbox as a new row: the pool's settings; warm (unclaimed) unless a claim starts it. */
export function poolSandbox(pool: PoolRow, fields: Partial<SandboxRow> & { warm: boolean }): NewSandbox {
  return pendingSandbox({
    projectId: pool.projectId,
    image: pool.image,
    cpus: pool.cpus,
    memoryMb: pool.memoryMb,
    diskMb: pool.diskMb,
    timeoutSecs: pool.timeoutSecs,
    entrypoint: pool.entrypoint,
    network: pool.network,
    poolId: pool.id,
    ...fields,
  });
}

/**
 * Keeps every pool's warm sandboxes started: `warm_containers` of them, within `max_containers` for the pool's
 * warm and claimed sandboxes together; extra warm ones (after the pool shrank) are ended. Called from the
 * scheduler's pass; warm sandboxes are placed by the scheduler like any other.
 */
export class PoolKeeper {
  readonly #repo: SandboxRepository;
  readonly #pools: PoolRepository;
  readonly #terminate: (row: SandboxRow) => Promise<unknown>;
  #last = 0;

  constructor(options: {
    repo: SandboxRepository;
    pools: PoolRepository;
    terminate: (row: SandboxRow) => Promise<unknown>;
  }) {
    this.#repo = options.repo;
    this.#pools = options.pools;
    this.#terminate = options.terminate;
  }

  /** Looks at the pools again on the next pass rather than a second later (after a claim). */
  wake(): void {
    this.#last = 0;
  }

  /** Returns whether it created sandboxes (the scheduler then places them at once). */
  async pass(now: number): Promise<boolean> {
    if (now - this.#last < PASS_INTERVAL_MS) return false;
    this.#last = now;
    let created = false;
    const pools = await this.#pools.all();
    // Warm sandboxes of a pool that was deleted meanwhile go too.
    const known = new Set(pools.map((pool) => pool.id));
    for (const row of await this.#repo.withStatus(["pending", "running"])) {
      if (row.warm && row.poolId !== null && !known.has(row.poolId)) await this.#terminate(row);
    }
    for (const pool of pools) {
      const rows = await this.#repo.ofPool(pool.id, FAILURE_BACKOFF_MS);
      const live = rows.filter((row) => row.status !== "terminated");
      const warm = live.filter((row) => row.warm);
      for (const extra of warm.slice(pool.warmContainers)) await this.#terminate(extra);
      const failing = rows.some((row) => row.warm && row.status === "terminated" && row.outcome === "failed");
      if (failing) continue;
      const room = pool.maxContainers === null ? Number.POSITIVE_INFINITY : pool.maxContainers - live.length;
      const need = Math.min(pool.warmContainers - warm.length, room);
      for (let i = 0; i < need; i++) {
        await this.#repo.insert(poolSandbox(pool, { warm: true }));
        created = true;
      }
    }
    return created;
  }
}
