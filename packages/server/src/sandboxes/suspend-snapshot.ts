import { type CreateSandboxResponse, type Sandbox, ServiceError, type sandboxRoutes } from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { pendingSandbox, type SandboxRepository, type SandboxRow } from "./repository.ts";
import type { Scheduler } from "./scheduler.ts";
import { type SnapshotRepository, toSnapshot } from "./snapshots.ts";
import type { TemplateRepository } from "./templates.ts";

interface Deps {
  repo: SandboxRepository;
  snapshots: SnapshotRepository;
  scheduler: Scheduler;
  found(auth: AuthContext, idOrName: string): Promise<SandboxRow>;
  view(auth: AuthContext, row: SandboxRow): Promise<Sandbox>;
  namespaceOf(auth: AuthContext): Promise<string>;
  /** Removes a snapshot's disk from the executor that holds it. */
  removeSnapshotDisk(snapshotId: string): Promise<void>;
  templates: TemplateRepository;
  /** The create answer of a new sandbox row. */
  createResponse(row: SandboxRow): CreateSandboxResponse;
}

/** How long a copy waits for its sandboxes to start before it answers with them as they are. */
const COPY_START_TIMEOUT_MS = 120_000;

type SuspendSnapshotHandlers = Pick<
  Handlers<typeof sandboxRoutes>,
  | "suspendSandbox"
  | "resumeSandbox"
  | "snapshotSandbox"
  | "copySandbox"
  | "listSnapshots"
  | "getSnapshot"
  | "deleteSnapshot"
>;

/** Suspend and resume (named sandboxes), and filesystem snapshots of running sandboxes. */
export function suspendSnapshotHandlers(deps: Deps): SuspendSnapshotHandlers {
  const { scheduler, snapshots } = deps;

  async function snapshotOf(auth: AuthContext, id: string) {
    const row = await snapshots.get(auth.projectId, id);
    if (!row) throw new ServiceError("SNAPSHOT_NOT_FOUND", `no snapshot ${id}`);
    return row;
  }

  /**
   * Starts a filesystem snapshot of a running sandbox (after one under way, if any: one at a time) and returns its
   * row, in progress.
   */
  async function startSnapshot(auth: AuthContext, idOrName: string) {
    let row = await deps.found(auth, idOrName);
    if (row.status === "snapshotting") {
      await scheduler.snapshotSettled(row.id);
      row = await deps.found(auth, row.id);
    }
    if (row.status !== "running") {
      throw new ServiceError("SANDBOX_BUSY", `the sandbox is ${row.status}, not running`);
    }
    const snapshot = await snapshots.create({
      projectId: auth.projectId,
      sandboxId: row.id,
      baseImage: row.image ?? "default",
      snapshotType: "filesystem",
      status: "in_progress",
    });
    try {
      await scheduler.snapshot(row, snapshot.id);
    } catch (error) {
      await snapshots.remove(snapshot.id);
      throw error;
    }
    return snapshot;
  }

  return {
    suspendSandbox: async ({ params, auth, reply }) => {
      const row = await deps.found(auth, params.sandbox_id);
      if (!row.name) {
        throw new ServiceError(
          "INVALID_REQUEST",
          "only a named sandbox can be suspended (give it a name first)",
        );
      }
      const already = row.status === "suspended";
      const view = await deps.view(auth, await scheduler.suspend(row));
      return already ? reply.code(200).send(view) : view;
    },

    resumeSandbox: async ({ params, auth, reply }) => {
      const row = await deps.found(auth, params.sandbox_id);
      const already = row.status === "running";
      const view = await deps.view(auth, await scheduler.resume(row));
      return already ? reply.code(200).send(view) : view;
    },

    snapshotSandbox: async ({ params, body, auth }) => {
      if (body.snapshot_type === "memory") throw new ServiceError("SNAPSHOT_TYPE_UNSUPPORTED");
      const snapshot = await startSnapshot(auth, params.sandbox_id);
      return { snapshot_id: snapshot.id, status: "in_progress" as const };
    },

    copySandbox: async ({ params, query, auth }) => {
      // A copy is a snapshot of the running sandbox and new sandboxes started from it with the same settings:
      // its files, not its processes. The snapshot goes once they have their own disks.
      const snapshot = await startSnapshot(auth, params.sandbox_id);
      const row = await deps.found(auth, snapshot.sandboxId);
      await scheduler.snapshotSettled(row.id);
      const taken = await snapshots.get(auth.projectId, snapshot.id);
      if (taken?.status !== "completed") {
        await snapshots.remove(snapshot.id);
        throw new Error(`the copy's snapshot failed: ${taken?.error ?? "unknown"}`);
      }
      const copies: SandboxRow[] = [];
      for (let i = 0; i < (query.times ?? 1); i++) {
        const copy = await deps.repo.insert(
          pendingSandbox({
            projectId: row.projectId,
            image: row.image,
            cpus: row.cpus,
            memoryMb: row.memoryMb,
            diskMb: row.diskMb,
            timeoutSecs: row.timeoutSecs,
            entrypoint: row.entrypoint,
            network: row.network,
            exposedPorts: row.exposedPorts,
            allowUnauthenticatedAccess: row.allowUnauthenticatedAccess,
            snapshotId: snapshot.id,
          }),
        );
        if (copy) copies.push(copy);
      }
      scheduler.wake();
      const deadline = Date.now() + COPY_START_TIMEOUT_MS;
      const settled: SandboxRow[] = [];
      for (const copy of copies) {
        let current = copy;
        while (current.status === "pending" && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
          current = (await deps.repo.get(copy.id)) ?? current;
        }
        settled.push(current);
      }
      if (settled.every((copy) => copy.status !== "pending")) {
        await snapshots.remove(snapshot.id);
        await deps.removeSnapshotDisk(snapshot.id);
      }
      return { source_sandbox_id: row.id, sandboxes: settled.map(deps.createResponse) };
    },

    listSnapshots: async ({ auth, query }) => {
      const namespace = await deps.namespaceOf(auth);
      const rows = await snapshots.list(auth.projectId, {
        includeBuildCache: query.include === "build_cache",
      });
      return { snapshots: rows.map((row) => toSnapshot(row, namespace)) };
    },

    getSnapshot: async ({ params, auth }) =>
      toSnapshot(await snapshotOf(auth, params.snapshot_id), await deps.namespaceOf(auth)),

    deleteSnapshot: async ({ params, auth }) => {
      const snapshot = await snapshotOf(auth, params.snapshot_id);
      if (snapshot.status === "in_progress") {
        throw new ServiceError("SNAPSHOT_IN_USE", "the snapshot is still being taken");
      }
      const starting = (await deps.repo.withStatus(["pending"])).find(
        (row) => row.snapshotId === snapshot.id,
      );
      if (starting)
        throw new ServiceError("SNAPSHOT_IN_USE", `sandbox ${starting.id} is being created from it`);
      const template = (await deps.templates.ofSnapshot(snapshot.id))[0];
      if (template) throw new ServiceError("SNAPSHOT_IN_USE", `template ${template.name} is made from it`);
      await snapshots.remove(snapshot.id);
      await deps.removeSnapshotDisk(snapshot.id);
    },
  };
}
