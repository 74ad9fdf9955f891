import {
  type CreatePoolRequest,
  type CreateSandboxResponse,
  type FileSystemMount,
  type SandboxPool,
  ServiceError,
  type sandboxRoutes,
} from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { checkNetworkPolicy } from "../executor/linux/egress-policy.ts";
import { isUniqueViolation } from "../store/db.ts";
import { checkMounts } from "./mounts.ts";
import type { PoolKeeper } from "./pool-keeper.ts";
import { poolSandbox } from "./pool-keeper.ts";
import type { PoolRepository, PoolRow, PoolSettings } from "./pools.ts";
import { type IngressConfig, toCreateResponse } from "./record.ts";
import type { SandboxRepository, SandboxRow } from "./repository.ts";
import type { Scheduler } from "./scheduler.ts";

const DEFAULTS = { cpus: 1.0, memoryMb: 1024, diskMb: 10240 };

interface Deps {
  repo: SandboxRepository;
  pools: PoolRepository;
  keeper: PoolKeeper;
  scheduler: Scheduler;
  ingress: IngressConfig;
  namespaceOf(auth: AuthContext): Promise<string>;
  /** The `image` a pool records for a request's (an OCI reference checked, an uploaded image's digest). */
  imageOf(projectId: string, image: string | null | undefined): Promise<string | null>;
}

function settingsOf(body: CreatePoolRequest): PoolSettings {
  checkNetworkPolicy(body.network);
  const warm = body.warm_containers ?? 0;
  if (body.max_containers !== undefined && warm > body.max_containers) {
    throw new ServiceError(
      "INVALID_CONFIGURATION",
      `warm_containers (${warm}) is more than max_containers (${body.max_containers})`,
    );
  }
  const resources = body.resources ?? {};
  return {
    image: body.image ?? null,
    cpus: resources.cpus ?? DEFAULTS.cpus,
    memoryMb: resources.memory_mb ?? DEFAULTS.memoryMb,
    diskMb: resources.disk_mb ?? resources.ephemeral_disk_mb ?? DEFAULTS.diskMb,
    timeoutSecs: body.timeout_secs ?? 0,
    entrypoint: body.entrypoint ?? null,
    network: body.network ?? null,
    maxContainers: body.max_containers ?? null,
    warmContainers: warm,
  };
}

type PoolHandlers = Pick<
  Handlers<typeof sandboxRoutes>,
  "createPool" | "listPools" | "getPool" | "updatePool" | "deletePool" | "claimPoolSandbox"
>;

/**
 * Warm pools: their settings, the keeper that keeps `warm_containers` sandboxes started, and claims, which hand
 * out a warm running sandbox at once (the claim's mounts applied first) or start a new one while the pool has
 * room. `claimFromPool` also serves `POST /sandboxes` with a `pool_id`.
 */
export function poolHandlers(deps: Deps): PoolHandlers & {
  claimFromPool(
    auth: AuthContext,
    poolId: string,
    claim: { mounts: FileSystemMount[]; name?: string },
  ): Promise<CreateSandboxResponse>;
} {
  const { repo, pools, keeper, scheduler } = deps;

  async function found(auth: AuthContext, id: string): Promise<PoolRow> {
    const pool = await pools.get(auth.projectId, id);
    if (!pool) throw new ServiceError("POOL_NOT_FOUND", `no pool ${id}`);
    return pool;
  }

  async function view(pool: PoolRow, namespace: string): Promise<SandboxPool> {
    const live = (await repo.ofPool(pool.id, 0)).filter((row) => row.status !== "terminated");
    return {
      pool_id: pool.id,
      namespace,
      image: pool.image ?? "default",
      resources: {
        cpus: pool.cpus,
        memory_mb: pool.memoryMb,
        disk_mb: pool.diskMb,
        ephemeral_disk_mb: pool.diskMb,
      },
      timeout_secs: pool.timeoutSecs,
      entrypoint: pool.entrypoint,
      max_containers: pool.maxContainers,
      warm_containers: pool.warmContainers,
      network: pool.network,
      containers: live.map((row) => ({
        id: row.id,
        state: row.warm ? ("Idle" as const) : ("Running" as const),
        sandbox_id: row.warm ? null : row.id,
        executor_id: row.executorId ?? "",
      })),
      created_at: pool.createdAt,
      updated_at: pool.updatedAt,
    };
  }

  /** Ends the pool's warm sandboxes (their settings changed, or the pool goes). */
  async function endWarm(pool: PoolRow): Promise<void> {
    for (const row of await repo.ofPool(pool.id, 0)) {
      if (row.warm && row.status !== "terminated") await scheduler.terminate(row, { outcome: "deleted" });
    }
  }

  async function claimFromPool(
    auth: AuthContext,
    poolId: string,
    claim: { mounts: FileSystemMount[]; name?: string },
  ): Promise<CreateSandboxResponse> {
    const pool = await found(auth, poolId);
    const live = (await repo.ofPool(pool.id, 0)).filter((row) => row.status !== "terminated");
    const named = claim.name ? { name: claim.name } : {};
    for (const candidate of live.filter((row) => row.warm && row.status === "running")) {
      let row: SandboxRow | null;
      try {
        // The claim starts the sandbox's clock; its mounts are applied before the answer.
        row = await repo.takeWarm(candidate.id, {
          startedAt: Date.now(),
          fileSystems: claim.mounts,
          ...named,
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        throw new ServiceError("SANDBOX_NAME_TAKEN", `a live sandbox is already named ${claim.name}`);
      }
      if (!row) continue;
      keeper.wake();
      scheduler.wake();
      if (claim.mounts.length > 0) {
        await scheduler.applyMounts(row.id);
        row = (await repo.get(row.id)) ?? row;
      }
      return { ...toCreateResponse(row, deps.ingress), claim_configuration_applied: true };
    }
    if (pool.maxContainers !== null && live.length >= pool.maxContainers) {
      throw new ServiceError(
        "POOL_AT_CAPACITY",
        `pool ${pool.id} has no warm sandbox and is at ${pool.maxContainers}`,
      );
    }
    const row = await repo.insert(
      poolSandbox(pool, { warm: false, fileSystems: claim.mounts, name: claim.name ?? null }),
    );
    if (!row) throw new ServiceError("SANDBOX_NAME_TAKEN", `a live sandbox is already named ${claim.name}`);
    scheduler.wake();
    return { ...toCreateResponse(row, deps.ingress), claim_configuration_applied: true };
  }

  return {
    claimFromPool,

    createPool: async ({ body, auth }) => {
      const pool = await pools.create(auth.projectId, {
        ...settingsOf(body),
        image: await deps.imageOf(auth.projectId, body.image),
      });
      keeper.wake();
      scheduler.wake();
      return { pool_id: pool.id, namespace: await deps.namespaceOf(auth) };
    },

    listPools: async ({ auth }) => {
      const namespace = await deps.namespaceOf(auth);
      return {
        pools: await Promise.all((await pools.list(auth.projectId)).map((pool) => view(pool, namespace))),
      };
    },

    getPool: async ({ params, auth }) =>
      view(await found(auth, params.pool_id), await deps.namespaceOf(auth)),

    updatePool: async ({ params, body, auth }) => {
      const pool = await found(auth, params.pool_id);
      const settings = { ...settingsOf(body), image: await deps.imageOf(auth.projectId, body.image) };
      const updated = (await pools.update(pool.id, settings)) ?? pool;
      // Warm sandboxes were started with the old settings: replaced by new ones.
      await endWarm(pool);
      keeper.wake();
      scheduler.wake();
      return view(updated, await deps.namespaceOf(auth));
    },

    deletePool: async ({ params, auth }) => {
      const pool = await found(auth, params.pool_id);
      const claimed = (await repo.ofPool(pool.id, 0)).find((row) => !row.warm && row.status !== "terminated");
      if (claimed) throw new ServiceError("POOL_IN_USE", `sandbox ${claimed.id} of the pool is still live`);
      await pools.remove(pool.id);
      await endWarm(pool);
    },

    claimPoolSandbox: async ({ params, body, auth }) =>
      claimFromPool(auth, params.pool_id, { mounts: checkMounts(body.file_systems ?? []) }),
  };
}
