import Type, { type Static } from "typebox";
import { closed, EpochMs } from "./common.ts";
import { defineRoutes } from "./route.ts";

/**
 * OCI images of a project: the credentials its sandboxes' pulls use per registry host, and images uploaded as
 * `docker save` / OCI archives, which sandboxes, pools and templates then name in `image`.
 */

/** A registry as OCI references name it: a host, a host:port or a bracketed IPv6 address with a port. */
export const RegistryHost = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern:
    "^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]{1,5})?$",
  description: "registry host as image references name it, e.g. ghcr.io or 127.0.0.1:5000",
});

export const PutRegistryCredentialRequest = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 256 }),
    /** Stored encrypted with the server's secret key; never returned or logged. */
    password: Type.String({ minLength: 1, maxLength: 8192 }),
  },
  closed,
);
export type PutRegistryCredentialRequest = Static<typeof PutRegistryCredentialRequest>;

/** A registry credential as answered: never its password. */
export const RegistryCredential = Type.Object(
  {
    registry: Type.String(),
    username: Type.String(),
    created_at: EpochMs,
    updated_at: EpochMs,
  },
  { $id: "RegistryCredential" },
);
export type RegistryCredential = Static<typeof RegistryCredential>;

/** A name of an uploaded image: what `image` says to use it. */
export const ImageName = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]*$",
});

/** An image uploaded as an archive. */
export const SandboxImage = Type.Object(
  {
    name: Type.String(),
    /** The manifest's digest, `sha256:<hex>`. */
    digest: Type.String(),
    size_bytes: Type.Integer({ minimum: 0 }),
    /** The image's config: what its sandboxes' processes get by default. */
    env: Type.Array(Type.String()),
    working_dir: Type.Union([Type.String(), Type.Null()]),
    user: Type.Union([Type.String(), Type.Null()]),
    entrypoint: Type.Union([Type.Array(Type.String()), Type.Null()]),
    cmd: Type.Union([Type.Array(Type.String()), Type.Null()]),
    created_at: EpochMs,
  },
  { $id: "SandboxImage" },
);
export type SandboxImage = Static<typeof SandboxImage>;

const common = {
  tag: "images",
  surface: "control",
  auth: "apiKey",
  responseKind: "json",
  namespaced: true,
} as const;

function withCommon<const T extends Record<string, object>>(routes: T) {
  const out: Record<string, unknown> = {};
  for (const [name, route] of Object.entries(routes)) out[name] = { ...common, ...route };
  return out as { [K in keyof T]: Omit<typeof common, keyof T[K]> & T[K] };
}

export const imageRoutes = defineRoutes({
  ...withCommon({
    putRegistryCredential: {
      method: "PUT",
      path: "/registry-credentials/{registry}",
      summary:
        "Set the project's credentials for an OCI registry host; its sandboxes' pulls from there use them",
      params: Type.Object({ registry: RegistryHost }),
      body: PutRegistryCredentialRequest,
      status: 200,
      response: RegistryCredential,
    },
    listRegistryCredentials: {
      method: "GET",
      path: "/registry-credentials",
      summary: "List the project's registry credentials (hosts and usernames; never passwords)",
      status: 200,
      response: Type.Object({ registry_credentials: Type.Array(RegistryCredential) }),
    },
    deleteRegistryCredential: {
      method: "DELETE",
      path: "/registry-credentials/{registry}",
      summary: "Delete the project's credentials for a registry host",
      params: Type.Object({ registry: RegistryHost }),
      status: 204,
      responseKind: "empty",
      errors: ["REGISTRY_CREDENTIAL_NOT_FOUND"],
    },
    uploadImage: {
      method: "PUT",
      path: "/images/{name}",
      summary:
        "Upload an image as a `docker save` or OCI archive (tar body); sandboxes, pools and templates then use it as image {name}",
      params: Type.Object({ name: ImageName }),
      bodyKind: "raw",
      status: 200,
      response: SandboxImage,
      errors: ["IMAGE_EXISTS", "INVALID_IMAGE", "FILE_TOO_LARGE", "IMAGES_UNAVAILABLE"],
    },
    listImages: {
      method: "GET",
      path: "/images",
      summary: "List the project's uploaded images",
      status: 200,
      response: Type.Object({ images: Type.Array(SandboxImage) }),
    },
    getImage: {
      method: "GET",
      path: "/images/{name}",
      summary: "Get an uploaded image",
      params: Type.Object({ name: ImageName }),
      status: 200,
      response: SandboxImage,
      errors: ["IMAGE_NOT_FOUND"],
    },
    deleteImage: {
      method: "DELETE",
      path: "/images/{name}",
      summary: "Delete an uploaded image (sandboxes already running on it keep it)",
      params: Type.Object({ name: ImageName }),
      status: 204,
      responseKind: "empty",
      errors: ["IMAGE_NOT_FOUND"],
    },
  }),
});
