import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { type imageRoutes, ServiceError } from "@svc/contract";
import { limitBytes } from "../api/body-limit.ts";
import type { Handlers } from "../api/routes.ts";
import { isImageReference, parseImageReference } from "../executor/linux/image-reference.ts";
import { archiveImage, type ImageConfig, type ImageRepository, toSandboxImage } from "./archives.ts";
import type { RegistryCredentialRepository } from "./credentials.ts";
import type { ImageSweeper } from "./sweep.ts";

export interface ImageDeps {
  credentials: RegistryCredentialRepository;
  images: ImageRepository;
  /** Imports an archive into this host's executor's image store; null when this host runs no executor. */
  importArchive:
    | ((tarFile: string, name: string) => Promise<{ digest: string; sizeBytes: number; config: ImageConfig }>)
    | null;
  /** Removes this host's unused image trees (after a delete too); null when this host runs no executor. */
  sweeper: ImageSweeper | null;
  /** Several hosts: asks every host's sweeper for a sweep (requestImageSweeps); null on a single host. */
  requestSweeps: (() => Promise<void>) | null;
  /** Where an uploaded archive waits while it is imported. */
  tmpDir: string;
  /** Largest archive accepted (413 FILE_TOO_LARGE beyond). */
  maxBytes: number;
}

/**
 * The `image` a sandbox, pool or template records for what a request says: an OCI reference (checked here, so a
 * bad one is a 400 rather than a failed start), the name of one of the project's uploaded images (recorded by
 * digest), or a built-in or operator image's name as it is.
 */
export async function imageOfRequest(
  images: ImageRepository,
  projectId: string,
  image: string | null | undefined,
): Promise<string | null> {
  if (image === undefined || image === null) return null;
  // The form an uploaded image is recorded in: the executor serves it by digest alone, so only the server writes it.
  if (image.startsWith("archive:")) {
    throw new ServiceError("INVALID_IMAGE", `image '${image}': name an uploaded image by its name alone`);
  }
  if (isImageReference(image)) {
    try {
      parseImageReference(image);
    } catch (error) {
      throw new ServiceError("INVALID_IMAGE", `image '${image}': ${(error as Error).message}`);
    }
    return image;
  }
  const uploaded = await images.get(projectId, image);
  return uploaded ? archiveImage(uploaded) : image;
}

export function imageHandlers(deps: ImageDeps): Handlers<typeof imageRoutes> {
  const { credentials, images } = deps;
  return {
    putRegistryCredential: async ({ params, body, auth }) =>
      credentials.put(auth.projectId, params.registry, body.username, body.password),

    listRegistryCredentials: async ({ auth }) => ({
      registry_credentials: await credentials.list(auth.projectId),
    }),

    deleteRegistryCredential: async ({ params, auth }) => {
      if (!(await credentials.remove(auth.projectId, params.registry))) {
        throw new ServiceError("REGISTRY_CREDENTIAL_NOT_FOUND", `no credentials for ${params.registry}`);
      }
    },

    uploadImage: async ({ params, auth, request }) => {
      if (!deps.importArchive) {
        throw new ServiceError("IMAGES_UNAVAILABLE", "this host runs no executor to keep the image");
      }
      if (await images.get(auth.projectId, params.name)) {
        throw new ServiceError("IMAGE_EXISTS", `the project already has an image ${params.name}`);
      }
      await mkdir(deps.tmpDir, { recursive: true, mode: 0o700 });
      const tarFile = join(deps.tmpDir, `image-${randomBytes(8).toString("hex")}.tar`);
      try {
        await pipeline(request.raw, limitBytes(deps.maxBytes), createWriteStream(tarFile, { mode: 0o600 }));
        let imported: Awaited<ReturnType<NonNullable<ImageDeps["importArchive"]>>>;
        try {
          imported = await deps.importArchive(tarFile, params.name);
        } catch (error) {
          throw new ServiceError("INVALID_IMAGE", (error as Error).message);
        }
        const row = await images.create({
          projectId: auth.projectId,
          name: params.name,
          digest: imported.digest,
          sizeBytes: imported.sizeBytes,
          config: imported.config,
        });
        if (!row) throw new ServiceError("IMAGE_EXISTS", `the project already has an image ${params.name}`);
        return toSandboxImage(row);
      } finally {
        await rm(tarFile, { force: true });
      }
    },

    listImages: async ({ auth }) => ({ images: (await images.list(auth.projectId)).map(toSandboxImage) }),

    getImage: async ({ params, auth }) => {
      const row = await images.get(auth.projectId, params.name);
      if (!row) throw new ServiceError("IMAGE_NOT_FOUND", `no image ${params.name}`);
      return toSandboxImage(row);
    },

    deleteImage: async ({ params, auth }) => {
      if (!(await images.remove(auth.projectId, params.name))) {
        throw new ServiceError("IMAGE_NOT_FOUND", `no image ${params.name}`);
      }
      // Its tree goes once nothing uses it (and the grace period has passed): here at once, and on the other
      // hosts (which may hold trees of it too) at their next look at the request.
      await deps.requestSweeps?.();
      await deps.sweeper?.sweep();
    },
  };
}
