import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { ServiceError, type sandboxRoutes } from "@svc/contract";
import { limitBytes } from "../api/body-limit.ts";
import type { Handlers } from "../api/routes.ts";
import type { AuthContext } from "../auth/context.ts";
import { ExecutorError } from "../executor/executor.ts";
import { pinImage } from "../executor/linux/image-reference.ts";
import { type BuildCache, removeCacheSnapshots } from "./build-cache.ts";
import type { SandboxRepository } from "./repository.ts";
import type { Scheduler } from "./scheduler.ts";
import type { SnapshotRepository } from "./snapshots.ts";
import { newTemplateId, type TemplateRepository, toTemplate } from "./templates.ts";

interface Deps {
  repo: SandboxRepository;
  templates: TemplateRepository;
  snapshots: SnapshotRepository;
  scheduler: Scheduler;
  /** The template build cache, whose steps a built template's delete releases. */
  buildCache: BuildCache;
  namespaceOf(auth: AuthContext): Promise<string>;
  /** The `image` recorded for a request's (an OCI reference checked, an uploaded image's digest). */
  imageOf(projectId: string, image: string | null | undefined): Promise<string | null>;
  /** Where an uploaded tree waits while its disk is made. */
  tmpDir: string;
  /** Largest tar accepted (413 FILE_TOO_LARGE beyond). */
  maxBytes: number;
}

type TemplateHandlers = Pick<
  Handlers<typeof sandboxRoutes>,
  "createTemplate" | "createTemplateFromTree" | "listTemplates" | "getTemplate" | "deleteTemplate"
>;

/**
 * Templates: named root disks made from a snapshot, or from a tar of a tree laid over an image (the default one,
 * an OCI reference or an uploaded image).
 */
export function templateHandlers(deps: Deps): TemplateHandlers {
  const { templates } = deps;

  async function found(auth: AuthContext, idOrName: string) {
    const row = await templates.find(auth.projectId, idOrName);
    if (!row) throw new ServiceError("TEMPLATE_NOT_FOUND", `no template ${idOrName}`);
    return row;
  }

  return {
    createTemplate: async ({ body, auth }) => {
      const snapshot = await deps.snapshots.get(auth.projectId, body.snapshot_id);
      if (snapshot?.status !== "completed") {
        throw new ServiceError("SNAPSHOT_NOT_FOUND", `no completed snapshot ${body.snapshot_id}`);
      }
      const row = await templates.create({
        projectId: auth.projectId,
        name: body.name,
        baseImage: snapshot.baseImage,
        pinnedImage: snapshot.pinnedImage,
        source: "snapshot",
        snapshotId: snapshot.id,
        sizeBytes: snapshot.sizeBytes,
      });
      if (!row) throw new ServiceError("TEMPLATE_EXISTS", `the project already has a template ${body.name}`);
      return toTemplate(row, await deps.namespaceOf(auth));
    },

    createTemplateFromTree: async ({ params, query, auth, request }) => {
      if (await templates.find(auth.projectId, params.template)) {
        throw new ServiceError("TEMPLATE_EXISTS", `the project already has a template ${params.template}`);
      }
      const baseImage = (await deps.imageOf(auth.projectId, query.image)) ?? "default";
      await mkdir(deps.tmpDir, { recursive: true, mode: 0o700 });
      const tarFile = join(deps.tmpDir, `template-${randomBytes(8).toString("hex")}.tar`);
      const id = newTemplateId();
      try {
        await pipeline(request.raw, limitBytes(deps.maxBytes), createWriteStream(tarFile, { mode: 0o600 }));
        let size: { sizeBytes: number; imageDigest: string | null };
        try {
          size = await deps.scheduler.buildTemplateDisk(id, tarFile, {
            image: baseImage,
            projectId: auth.projectId,
          });
        } catch (error) {
          if (error instanceof ServiceError) throw error;
          // The image could not be pulled (not found, refused, unreachable): the template is not made.
          if (error instanceof ExecutorError) {
            throw new ServiceError("INVALID_IMAGE", `image '${baseImage}': ${error.message}`);
          }
          throw new ServiceError(
            "INVALID_FILE",
            `the body is not a tar archive that can be laid out: ${(error as Error).message}`,
          );
        }
        const row = await templates.create(
          {
            projectId: auth.projectId,
            name: params.template,
            baseImage,
            // Its sandboxes start from the digest pulled now, whatever the tag points at later.
            pinnedImage: pinImage(baseImage, size.imageDigest),
            source: "tree",
            snapshotId: null,
            sizeBytes: size.sizeBytes,
          },
          id,
        );
        if (!row) {
          await deps.scheduler.removeSnapshot(id);
          throw new ServiceError("TEMPLATE_EXISTS", `the project already has a template ${params.template}`);
        }
        return toTemplate(row, await deps.namespaceOf(auth));
      } finally {
        await rm(tarFile, { force: true });
      }
    },

    listTemplates: async ({ auth }) => {
      const namespace = await deps.namespaceOf(auth);
      return { templates: (await templates.list(auth.projectId)).map((row) => toTemplate(row, namespace)) };
    },

    getTemplate: async ({ params, auth }) =>
      toTemplate(await found(auth, params.template), await deps.namespaceOf(auth)),

    deleteTemplate: async ({ params, auth }) => {
      const row = await found(auth, params.template);
      const starting = (await deps.repo.withStatus(["pending"])).find(
        (sandbox) => sandbox.templateId === row.id,
      );
      if (starting)
        throw new ServiceError("TEMPLATE_IN_USE", `sandbox ${starting.id} is being created from it`);
      await templates.remove(row.id);
      if (row.source === "tree") await deps.scheduler.removeSnapshot(row.id);
      // A built template's cached steps go with it, unless another template uses them.
      const unused = await deps.buildCache.release(row.id);
      await removeCacheSnapshots(
        deps.buildCache,
        deps.snapshots,
        (id) => deps.scheduler.removeSnapshot(id),
        unused,
      );
    },
  };
}
