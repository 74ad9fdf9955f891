import { type Sandbox, ServiceError, type sandboxRoutes } from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import type { SandboxRepository, SandboxRow } from "./repository.ts";
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
}

type SuspendSnapshotHandlers = Pick<
  Handlers<typeof sandboxRoutes>,
  "suspendSandbox" | "resumeSandbox" | "snapshotSandbox" | "listSnapshots" | "getSnapshot" | "deleteSnapshot"
>;

/** Suspend and resume (named sandboxes), and filesystem snapshots of running sandboxes. */
export function suspendSnapshotHandlers(deps: Deps): SuspendSnapshotHandlers {
  const { scheduler, snapshots } = deps;

  async function snapshotOf(auth: AuthContext, id: string) {
    const row = await snapshots.get(auth.projectId, id);
    if (!row) throw new ServiceError("SNAPSHOT_NOT_FOUND", `no snapshot ${id}`);
    return row;
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
      let row = await deps.found(auth, params.sandbox_id);
      // One snapshot at a time: a second one waits for the first to be taken.
      if (row.status === "snapshotting") {
        await scheduler.snapshotSettled(row.id);
        row = await deps.found(auth, row.id);
      }
      if (row.status !== "running")
        throw new ServiceError("SANDBOX_BUSY", `the sandbox is ${row.status}, not running`);
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
      return { snapshot_id: snapshot.id, status: "in_progress" as const };
    },

    listSnapshots: async ({ auth }) => {
      const namespace = await deps.namespaceOf(auth);
      return { snapshots: (await snapshots.list(auth.projectId)).map((row) => toSnapshot(row, namespace)) };
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
