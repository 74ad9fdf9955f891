/**
 * # build-launcher
 *
 * Starts template builds: the Dockerfile read and checked, the record kept, the build run in the background
 * over the sandboxes domain (build sandboxes go through the ordinary create and delete paths).
 */
import { type SandboxNetworkAccessControl, ServiceError, type sandboxRoutes } from "@svc/contract";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { DockerfileError, parseDockerfile } from "../executor/linux/dockerfile.ts";
import { createBuildCache } from "./build-cache.ts";
import { type BuildDeps, BuildStepError, runBuild } from "./build-runner.ts";
import { createBuildStore } from "./build-store.ts";
import { BuildBook, type BuildRecord } from "./builds.ts";
import { type ContextEntry, ContextError, readContextTar } from "./context-tar.ts";
import { sandboxLink } from "./daemon-link.ts";
import type { SandboxDeps } from "./routes.ts";

/** What starting a build needs: the build's inputs read and checked, then its record. */
export interface BuildLauncher {
  book: BuildBook;
  deps: BuildDeps;
  /** Deletes a template through the ordinary delete path. */
  deleteTemplate(auth: AuthContext, name: string): Promise<void>;
  /** After a restart: this host's builds that were running end failed, their build sandboxes removed. */
  recover(): Promise<void>;
  /** Starts a build in the background; the record ends when it does. */
  launch(input: {
    auth: AuthContext;
    name: string;
    dockerfile: string;
    buildArgs: Record<string, string>;
    context: ContextEntry[];
    contextTar: Buffer;
    network: SandboxNetworkAccessControl | null;
    record?: BuildRecord;
  }): Promise<BuildRecord>;
}

/** Reads a Dockerfile into steps; its faults are 400 INVALID_DOCKERFILE with the line. */
export function dockerfileSteps(text: string, buildArgs: Record<string, string>) {
  try {
    return parseDockerfile(text, buildArgs);
  } catch (error) {
    if (error instanceof DockerfileError) throw new ServiceError("INVALID_DOCKERFILE", error.message);
    throw error;
  }
}

export function readContext(bytes: Buffer): ContextEntry[] {
  try {
    return readContextTar(bytes);
  } catch (error) {
    if (error instanceof ContextError)
      throw new ServiceError("INVALID_FILE", `the build context: ${error.message}`);
    throw error;
  }
}

/** The launcher of builds over the sandboxes domain: build sandboxes go through the ordinary create and delete. */
export function buildLauncher(
  sandboxes: SandboxDeps,
  lifecycle: Handlers<typeof sandboxRoutes>,
  options: { hostId: string; cacheSteps: number },
): BuildLauncher {
  const create = lifecycle.createSandbox;
  const remove = lifecycle.deleteSandbox;
  const removeTemplate = lifecycle.deleteTemplate;
  if (!create || !remove || !removeTemplate) throw new Error("the sandbox lifecycle handlers are missing");
  // The lifecycle handlers read only body, params and auth; a build has no HTTP request of its own.
  const noHttp = { request: undefined as never, reply: undefined as never, query: {} as never };
  const deps: BuildDeps = {
    sandboxes: {
      create: async (auth, body) =>
        (await create({ ...noHttp, auth, body, params: {} as never })) as { sandbox_id: string },
      remove: async (auth, id) => {
        await remove({ ...noHttp, auth, body: undefined as never, params: { sandbox_id: id } });
      },
      get: (id) => sandboxes.repo.get(id),
      link: (row) => sandboxLink(row, sandboxes.secretOf(row.id), sandboxes.dialer),
      snapshot: async (row, snapshotId) => {
        await sandboxes.scheduler.snapshot(row, snapshotId);
        await sandboxes.scheduler.snapshotSettled(row.id);
      },
    },
    snapshots: sandboxes.snapshots,
    templates: sandboxes.templates,
    cache: createBuildCache(sandboxes.store.db),
    removeSnapshotDisk: (id) => sandboxes.scheduler.removeSnapshot(id),
    cacheSteps: options.cacheSteps,
  };
  const book = new BuildBook(createBuildStore(sandboxes.store.db), options.hostId);
  return {
    book,
    deps,
    async recover() {
      const ended = await book.recover(async (build) => {
        const id = build.sandboxId as string;
        const row = await sandboxes.repo.get(id);
        if (!row || row.status === "terminated") return;
        const project = await sandboxes.store.projects.get(build.projectId);
        const auth: AuthContext = {
          keyId: "build-recovery",
          projectId: build.projectId,
          organizationId: project?.organization_id ?? "",
        };
        await deps.sandboxes.remove(auth, id).catch((error: Error) =>
          sandboxes.log("removing the build sandbox of an interrupted build failed", {
            build: build.id,
            sandbox: id,
            error: error.message,
          }),
        );
      });
      for (const build of ended) {
        sandboxes.log("ended a template build the restart interrupted", { build: build.id });
      }
    },
    async deleteTemplate(auth, name) {
      await removeTemplate({ ...noHttp, auth, body: undefined as never, params: { template: name } });
    },
    async launch(input) {
      const parsed = dockerfileSteps(input.dockerfile, input.buildArgs);
      const record = input.record ?? (await book.add(input.auth.projectId, input.name));
      record.warnings = parsed.warnings;
      record.status = "running";
      record.changed();
      for (const warning of parsed.warnings) record.line(`warning: ${warning}`);
      runBuild(deps, {
        auth: input.auth,
        record,
        steps: parsed.steps,
        context: input.context,
        contextTar: input.contextTar,
        network: input.network,
      }).then(
        (template) => record.end({ templateId: template.id }),
        (error: Error) => {
          if (!(error instanceof BuildStepError) && !(error instanceof ServiceError)) {
            sandboxes.log("template build failed", { build: record.id, error: error.message });
          }
          record.end({ error: error.message });
        },
      );
      return record;
    },
  };
}
