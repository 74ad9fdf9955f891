import { MANAGEMENT_PORT, type Sandbox, ServiceError, type sandboxRoutes } from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { checkNetworkPolicy } from "../executor/linux/egress-policy.ts";
import type { FileSystemRepository } from "../filesystems/repository.ts";
import type { FileSystemStorage } from "../filesystems/storage.ts";
import type { SandboxDialer } from "../hosts/relay.ts";
import { type ImageDeps, imageOfRequest } from "../images/routes.ts";
import type { Logger } from "../log.ts";
import { isUniqueViolation } from "../store/db.ts";
import type { Store } from "../store/store.ts";
import { createBuildCache } from "./build-cache.ts";
import { sandboxLogHandlers } from "./logs.ts";
import { checkMounts, mountHandlers } from "./mounts.ts";
import type { PoolKeeper } from "./pool-keeper.ts";
import { poolHandlers } from "./pool-routes.ts";
import type { PoolRepository } from "./pools.ts";
import { type IngressConfig, toCreateResponse, toSandbox, toStartTimeline } from "./record.ts";
import { pendingSandbox, type SandboxRepository, type SandboxRow } from "./repository.ts";
import type { Scheduler } from "./scheduler.ts";
import type { SnapshotRepository } from "./snapshots.ts";
import { suspendSnapshotHandlers } from "./suspend-snapshot.ts";
import { templateHandlers } from "./template-routes.ts";
import { startImage, type TemplateRepository, templateCommand } from "./templates.ts";

export interface SandboxDeps {
  store: Store;
  repo: SandboxRepository;
  scheduler: Scheduler;
  secretOf: (sandboxId: string) => string;
  /** Several hosts: reaches sandboxes that run on another host's executor, through its relay. */
  dialer?: SandboxDialer;
  ingress: IngressConfig;
  executorId: string | null;
  /** The project's named file systems, which sandboxes mount. */
  fileSystems: { repo: FileSystemRepository; storage: FileSystemStorage };
  /** Filesystem snapshots of sandboxes. */
  snapshots: SnapshotRepository;
  /** Named root disks that sandboxes start from. */
  templates: TemplateRepository;
  /** Registry credentials and uploaded images (images/routes.ts). */
  images: ImageDeps;
  /** Where uploads wait (a template's tar). */
  tmpDir: string;
  /** Largest tar of a template accepted. */
  maxUploadBytes: number;
  /** Warm pools, and the keeper that tops them up. */
  pools: PoolRepository;
  poolKeeper: PoolKeeper;
  log: Logger;
}

const DEFAULTS = { cpus: 1.0, memoryMb: 1024, diskMb: 10240 };

function encodeCursor(row: SandboxRow): string {
  return Buffer.from(`${row.createdAt}:${row.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^(\d{1,16}):([a-z0-9-]{1,64})$/.exec(text);
  if (!match) throw new ServiceError("INVALID_CURSOR", "cursor is not a cursor of this listing");
  return { createdAt: Number(match[1]), id: match[2] };
}

function userPorts(ports: number[] | undefined): number[] | null {
  if (ports === undefined) return null;
  return ports.filter((p) => p !== MANAGEMENT_PORT);
}

/** Handlers of the sandbox lifecycle (registered in both path forms, `/sandboxes` and `/v1/namespaces/{ns}/sandboxes`). */
export function sandboxHandlers(deps: SandboxDeps): Handlers<typeof sandboxRoutes> {
  const { repo, scheduler, ingress, store } = deps;

  async function namespaceOf(auth: AuthContext): Promise<string> {
    return (await store.projects.get(auth.projectId))?.name ?? auth.projectId;
  }
  async function found(auth: AuthContext, idOrName: string): Promise<SandboxRow> {
    const row = await repo.find(auth.projectId, idOrName);
    if (!row) throw new ServiceError("SANDBOX_NOT_FOUND", `no sandbox ${idOrName}`);
    return row;
  }
  const view = async (auth: AuthContext, row: SandboxRow): Promise<Sandbox> =>
    toSandbox(row, await namespaceOf(auth), ingress);

  const pools = poolHandlers({
    repo,
    pools: deps.pools,
    keeper: deps.poolKeeper,
    scheduler,
    ingress,
    namespaceOf,
    imageOf: (projectId, image) => imageOfRequest(deps.images.images, projectId, image),
  });

  const create: NonNullable<Handlers<typeof sandboxRoutes>["createSandbox"]> = async ({ body, auth }) => {
    // A pool's sandbox: a warm one claimed (or started) with the pool's settings; the request adds its mounts and name.
    if (body.pool_id) {
      return pools.claimFromPool(auth, body.pool_id, {
        mounts: checkMounts(body.file_systems ?? []),
        name: body.name,
      });
    }
    // A sandbox from a snapshot (or a template) runs its image on a copy of its disk (never smaller than it was).
    const template = body.template_id ? await deps.templates.find(auth.projectId, body.template_id) : null;
    if (body.template_id && !template)
      throw new ServiceError("TEMPLATE_NOT_FOUND", `no template ${body.template_id}`);
    const snapshotId = body.snapshot_id ?? template?.snapshotId;
    const snapshot = snapshotId ? await deps.snapshots.get(auth.projectId, snapshotId) : null;
    if (snapshotId && snapshot?.status !== "completed") {
      throw new ServiceError("SNAPSHOT_NOT_FOUND", `no completed snapshot ${snapshotId}`);
    }
    const fileSystems = checkMounts(body.file_systems ?? []);
    checkNetworkPolicy(body.network);
    const resources = body.resources ?? {};
    const row = await repo.insert(
      pendingSandbox({
        projectId: auth.projectId,
        name: body.name ?? null,
        // A snapshot's or template's pinned digest: the tree its disk was made over, wherever the tag moved since.
        image: snapshot
          ? startImage(snapshot)
          : template
            ? startImage(template)
            : await imageOfRequest(deps.images.images, auth.projectId, body.image),
        cpus: resources.cpus ?? DEFAULTS.cpus,
        memoryMb: resources.memory_mb ?? DEFAULTS.memoryMb,
        diskMb: Math.max(
          resources.disk_mb ?? resources.ephemeral_disk_mb ?? DEFAULTS.diskMb,
          Math.ceil((snapshot?.rootfsDiskBytes ?? 0) / 1048576),
        ),
        timeoutSecs: body.timeout_secs ?? 0,
        maxPendingSecs: body.max_pending_secs ?? null,
        entrypoint: body.entrypoint ?? templateCommand(template?.config) ?? null,
        network: body.network ?? null,
        exposedPorts: userPorts(body.exposed_ports),
        allowUnauthenticatedAccess: body.allow_unauthenticated_access ?? false,
        fileSystems,
        templateId: template?.id ?? null,
        snapshotId: snapshot?.id ?? null,
      }),
    );
    if (!row) throw new ServiceError("SANDBOX_NAME_TAKEN", `a live sandbox is already named ${body.name}`);
    scheduler.wake();
    return toCreateResponse(row, ingress);
  };

  /** One page of the project's sandboxes (newest first), with cursors at the page's edges. */
  async function page(
    auth: AuthContext,
    query: { limit?: number; cursor?: string; direction?: "forward" | "backward" },
    status: "running" | "terminated" | undefined,
  ) {
    const direction = query.direction ?? "forward";
    const found = await repo.list({
      projectId: auth.projectId,
      status,
      limit: query.limit ?? 100,
      after: query.cursor ? decodeCursor(query.cursor) : undefined,
      direction,
    });
    const first = found.rows[0];
    const last = found.rows[found.rows.length - 1];
    // Cursors point at the page's edges: next_cursor continues to older rows, prev_cursor back to newer ones.
    const olderExist = direction === "forward" ? found.more : true;
    const newerExist = direction === "backward" ? found.more : query.cursor !== undefined;
    return {
      rows: found.rows,
      next_cursor: last && olderExist ? encodeCursor(last) : null,
      prev_cursor: first && newerExist ? encodeCursor(first) : null,
    };
  }

  const list: NonNullable<Handlers<typeof sandboxRoutes>["listSandboxes"]> = async ({ query, auth }) => {
    const namespace = await namespaceOf(auth);
    const { rows, ...cursors } = await page(auth, query, query.status);
    return { sandboxes: rows.map((row) => toSandbox(row, namespace, ingress)), ...cursors };
  };

  const archived = (row: SandboxRow, namespace: string) => ({
    ...toSandbox(row, namespace, ingress),
    archived_at: row.endedAt ?? row.createdAt,
  });

  const listArchived: NonNullable<Handlers<typeof sandboxRoutes>["listArchivedSandboxes"]> = async ({
    query,
    auth,
  }) => {
    const namespace = await namespaceOf(auth);
    const { rows, ...cursors } = await page(auth, query, "terminated");
    return { sandboxes: rows.map((row) => archived(row, namespace)), ...cursors };
  };

  const getArchived: NonNullable<Handlers<typeof sandboxRoutes>["getArchivedSandbox"]> = async ({
    params,
    auth,
  }) => {
    const row = await repo.get(params.sandbox_id);
    if (!row || row.projectId !== auth.projectId || row.status !== "terminated") {
      throw new ServiceError("SANDBOX_NOT_FOUND", `no archived sandbox ${params.sandbox_id}`);
    }
    return archived(row, await namespaceOf(auth));
  };

  const get: NonNullable<Handlers<typeof sandboxRoutes>["getSandbox"]> = async ({ params, auth }) =>
    view(auth, await found(auth, params.sandbox_id));

  const startTimeline: NonNullable<Handlers<typeof sandboxRoutes>["getSandboxStartTimeline"]> = async ({
    params,
    auth,
  }) => toStartTimeline(await found(auth, params.sandbox_id));

  const update: NonNullable<Handlers<typeof sandboxRoutes>["updateSandbox"]> = async ({
    params,
    body,
    auth,
  }) => {
    const row = await found(auth, params.sandbox_id);
    const changes: Partial<SandboxRow> = {};
    if (body.name !== undefined) changes.name = body.name;
    if (body.allow_unauthenticated_access !== undefined) {
      changes.allowUnauthenticatedAccess = body.allow_unauthenticated_access;
    }
    if (body.exposed_ports !== undefined) {
      const ports = userPorts(body.exposed_ports) ?? [];
      changes.exposedPorts = ports.length > 0 ? ports : null;
    }
    if (body.network !== undefined) {
      checkNetworkPolicy(body.network);
      changes.network = body.network;
    }
    if (Object.keys(changes).length === 0) return view(auth, row);
    let updated: SandboxRow | null;
    try {
      updated = await repo.update(row.id, changes);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new ServiceError("SANDBOX_NAME_TAKEN", `a live sandbox is already named ${body.name}`);
      }
      throw error;
    }
    if (body.network !== undefined) {
      // Stored first, so a start under way now picks it up; then applied to the live firewall. A policy that
      // cannot be applied (a hostname that does not resolve) fails the whole PATCH: every field is taken back,
      // and the policy in force stays.
      try {
        await scheduler.applyNetwork(row.id);
      } catch (error) {
        const previous = Object.fromEntries(
          Object.keys(changes).map((key) => [key, row[key as keyof SandboxRow]]),
        ) as Partial<SandboxRow>;
        await repo.update(row.id, previous);
        throw error;
      }
    }
    return view(auth, updated ?? row);
  };

  const remove: NonNullable<Handlers<typeof sandboxRoutes>["deleteSandbox"]> = async ({ params, auth }) => {
    const row = await found(auth, params.sandbox_id);
    if (row.status === "terminated") return view(auth, row);
    return view(auth, await scheduler.terminate(row, { outcome: "deleted" }));
  };

  return {
    createSandbox: create,
    listSandboxes: list,
    getSandbox: get,
    getSandboxStartTimeline: startTimeline,
    updateSandbox: update,
    deleteSandbox: remove,
    listArchivedSandboxes: listArchived,
    getArchivedSandbox: getArchived,
    ...sandboxLogHandlers({ found, namespaceOf, secretOf: deps.secretOf, dialer: deps.dialer }),
    ...mountHandlers({ repo, scheduler, found, view, log: deps.log }),
    createPool: pools.createPool,
    listPools: pools.listPools,
    getPool: pools.getPool,
    updatePool: pools.updatePool,
    deletePool: pools.deletePool,
    claimPoolSandbox: pools.claimPoolSandbox,
    ...templateHandlers({
      repo,
      templates: deps.templates,
      snapshots: deps.snapshots,
      scheduler,
      buildCache: createBuildCache(deps.store.db),
      namespaceOf,
      imageOf: (projectId, image) => imageOfRequest(deps.images.images, projectId, image),
      tmpDir: deps.tmpDir,
      maxBytes: deps.maxUploadBytes,
    }),
    ...suspendSnapshotHandlers({
      repo,
      snapshots: deps.snapshots,
      scheduler,
      found,
      view,
      namespaceOf,
      removeSnapshotDisk: (id) => scheduler.removeSnapshot(id),
      templates: deps.templates,
      createResponse: (row) => toCreateResponse(row, ingress),
    }),
  };
}
