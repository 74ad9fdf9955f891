import Type, { type Static } from "typebox";
import { closed, EpochMs, nullable } from "./common.ts";
import { defineRoutes } from "./route.ts";
import { EgressDestination, EntityName } from "./sandboxes.ts";

/**
 * # builds
 *
 * Template builds: a Dockerfile and a context tar made into a template, step by step in a build sandbox, each
 * step's result cached. Two doors lead in: this service's own (`POST /templates/{name}/build`, logs as SSE) and
 * the public platform's image builder (`Image(...).build()` of its SDKs), whose requests are served as recorded.
 */

export const TemplateBuildStatus = Type.Enum(["pending", "running", "succeeded", "failed"]);
export type TemplateBuildStatus = Static<typeof TemplateBuildStatus>;

export const TemplateBuild = Type.Object(
  {
    build_id: Type.String(),
    /** The template the build makes, by name. */
    template_name: Type.String(),
    status: TemplateBuildStatus,
    /** Why it failed; null otherwise. */
    error: nullable(Type.String()),
    /** The template made, once succeeded. */
    template_id: nullable(Type.String()),
    /** Instructions of the Dockerfile after FROM, and how many of them came from the cache. */
    steps: Type.Integer({ minimum: 0 }),
    cached_steps: Type.Integer({ minimum: 0 }),
    /** Instructions read and ignored (`EXPOSE`, `LABEL`...), with their line. */
    warnings: Type.Array(Type.String()),
    created_at: EpochMs,
    finished_at: nullable(EpochMs),
  },
  { $id: "TemplateBuild" },
);
export type TemplateBuild = Static<typeof TemplateBuild>;

/** Options of a build; the body is the context, a tar (plain or gzip) holding the Dockerfile. */
export const CreateTemplateBuildQuery = Type.Object(
  {
    /** The Dockerfile's path inside the context. */
    dockerfile: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, default: "Dockerfile" })),
    /** `NAME=value`, repeated: values of the Dockerfile's `ARG`s. */
    build_arg: Type.Optional(
      Type.Array(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*=", maxLength: 65536 }), { maxItems: 100 }),
    ),
    /** The egress policy `RUN` steps run under (as a sandbox's `network`). */
    allow_internet_access: Type.Optional(Type.Boolean()),
    allow_out: Type.Optional(Type.Array(EgressDestination, { maxItems: 1000 })),
    deny_out: Type.Optional(Type.Array(EgressDestination, { maxItems: 1000 })),
  },
  closed,
);
export type CreateTemplateBuildQuery = Static<typeof CreateTemplateBuildQuery>;

export const TemplateBuildParams = Type.Object({ build_id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Event names of a build's log stream: the log so far and then live lines, then `end` with the record. */
export const BuildEventName = { log: "log", end: "end" } as const;

/** One line of a build's log: `build` lines are the builder's own (step headers, cache hits). */
export const BuildLogEvent = Type.Object({
  line: Type.String(),
  stream: Type.Enum(["build", "stdout", "stderr"]),
  timestamp: EpochMs,
});
export type BuildLogEvent = Static<typeof BuildLogEvent>;

/** The public platform's scope path: ids as its key introspection reports them (this server's project id). */
const PlatformScope = Type.Object({
  organization: Type.String({ minLength: 1, maxLength: 100 }),
  project: Type.String({ minLength: 1, maxLength: 100 }),
});

/** `POST .../sandbox-template-builds` as the platform's SDK sends it (camelCase; a field it does not send is refused, as everywhere). */
export const PlatformTemplateBuildRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 63 }),
    dockerfile: Type.String({ minLength: 1, maxLength: 1048576 }),
    baseImage: Type.Optional(nullable(Type.String({ maxLength: 255 }))),
    /** A "diff" build's parent as the SDK describes it (an object); the server reads the parent from FROM. */
    parentTemplate: Type.Optional(nullable(Type.Object({}, { additionalProperties: true }))),
    public: Type.Optional(Type.Boolean()),
    rootfsNodeKind: Type.Optional(Type.String({ maxLength: 50 })),
    additionalLocalImages: Type.Optional(Type.Array(Type.Unknown())),
  },
  closed,
);

/**
 * The answer the SDK reads: a builder sandbox to create (`builder.image`) and the command to run in it once the
 * context is there (`builder.command`, shell words; the SDK appends `--spec <file> --metadata-out <file>`).
 */
export const PlatformTemplateBuild = Type.Object({
  buildId: Type.String(),
  snapshotId: Type.String(),
  rootfsNodeKind: Type.String(),
  builder: Type.Object({
    image: Type.String(),
    command: Type.String(),
    cpus: Type.Number(),
    memoryMb: Type.Integer(),
    diskMb: Type.Integer(),
  }),
});

/**
 * `POST .../sandbox-template-builds/{build_id}/complete`: the builder's metadata, passed on by the SDK with fields
 * of its own (`parentManifestUri`...): the one open body of the API, since the SDK's version decides its fields.
 */
export const PlatformCompleteBuildRequest = Type.Object({
  snapshotId: Type.Optional(Type.String({ maxLength: 200 })),
  snapshotUri: Type.Optional(Type.String({ maxLength: 2000 })),
  snapshotFormatVersion: Type.Optional(Type.String({ maxLength: 100 })),
  snapshotSizeBytes: Type.Optional(Type.Number()),
  rootfsDiskBytes: Type.Optional(Type.Number()),
  rootfsNodeKind: Type.Optional(Type.String({ maxLength: 50 })),
});

/** A template as the platform's SDK reads one (`findSandboxImageByName`, `listSandboxImages`). */
export const PlatformSandboxTemplate = Type.Object({
  id: Type.String(),
  name: Type.String(),
  snapshotId: nullable(Type.String()),
  snapshotUri: Type.String(),
  snapshotFormatVersion: Type.String(),
  snapshotSizeBytes: nullable(Type.Integer({ minimum: 0 })),
  rootfsDiskBytes: nullable(Type.Integer({ minimum: 0 })),
  rootfsNodeKind: Type.String(),
  public: Type.Boolean(),
});

/** The registered template, in the names the SDK reads (`id`, `templateId`) beside this service's own. */
export const PlatformTemplate = Type.Object({
  id: Type.String(),
  templateId: Type.String(),
  name: Type.String(),
  snapshotId: nullable(Type.String()),
  buildId: Type.Optional(Type.String()),
});

const common = { surface: "control", auth: "apiKey", responseKind: "json" } as const;

export const buildRoutes = defineRoutes({
  createTemplateBuild: {
    ...common,
    tag: "templates",
    namespaced: true,
    method: "POST",
    path: "/templates/{template}/build",
    summary:
      "Build a template named {template} from a Dockerfile and a context tar (the body); answers at once",
    params: Type.Object({ template: EntityName }),
    query: CreateTemplateBuildQuery,
    bodyKind: "raw",
    status: 202,
    response: TemplateBuild,
    errors: ["TEMPLATE_EXISTS", "INVALID_DOCKERFILE", "INVALID_FILE", "FILE_TOO_LARGE"],
  },
  listTemplateBuilds: {
    ...common,
    tag: "templates",
    namespaced: true,
    method: "GET",
    path: "/template-builds",
    summary: "List the project's template builds since the server started, newest first",
    status: 200,
    response: Type.Object({ builds: Type.Array(TemplateBuild) }),
  },
  getTemplateBuild: {
    ...common,
    tag: "templates",
    namespaced: true,
    method: "GET",
    path: "/template-builds/{build_id}",
    summary: "Get a template build",
    params: TemplateBuildParams,
    status: 200,
    response: TemplateBuild,
    errors: ["BUILD_NOT_FOUND"],
  },
  followTemplateBuild: {
    ...common,
    tag: "templates",
    namespaced: true,
    method: "GET",
    path: "/template-builds/{build_id}/logs",
    summary:
      "A build's log as server-sent events: `log` lines (the past ones first), then `end` with the record",
    params: TemplateBuildParams,
    status: 200,
    response: BuildLogEvent,
    responseKind: "sse",
    errors: ["BUILD_NOT_FOUND"],
  },
  getPlatformTemplateByName: {
    ...common,
    tag: "platform",
    method: "GET",
    path: "/platform/v1/organizations/{organization}/projects/{project}/sandbox-templates/by-name/{name}",
    summary:
      "A template by name, as the platform's SDK looks one up (findSandboxImageByName, a Dockerfile's FROM)",
    params: Type.Object({ ...PlatformScope.properties, name: Type.String({ minLength: 1, maxLength: 255 }) }),
    status: 200,
    response: PlatformSandboxTemplate,
    errors: ["TEMPLATE_NOT_FOUND", "PROJECT_NOT_FOUND"],
  },
  listPlatformTemplates: {
    ...common,
    tag: "platform",
    method: "GET",
    path: "/platform/v1/organizations/{organization}/projects/{project}/sandbox-templates",
    summary: "The project's templates as the platform's SDK lists them (listSandboxImages), in one page",
    params: PlatformScope,
    query: Type.Object({
      pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
      next: Type.Optional(Type.String({ maxLength: 1000 })),
    }),
    status: 200,
    response: Type.Object({
      items: Type.Array(PlatformSandboxTemplate),
      pagination: Type.Object({ next: nullable(Type.String()) }),
    }),
    errors: ["PROJECT_NOT_FOUND"],
  },
  deletePlatformSandboxImage: {
    ...common,
    tag: "templates",
    namespaced: true,
    method: "DELETE",
    path: "/sandbox-images/{name}",
    summary: "Delete a template by name, as the platform's SDK does (deleteSandboxImage)",
    params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }),
    status: 204,
    responseKind: "empty",
    errors: ["TEMPLATE_NOT_FOUND", "TEMPLATE_IN_USE"],
  },
  createPlatformTemplateBuild: {
    ...common,
    tag: "platform",
    method: "POST",
    path: "/platform/v1/organizations/{organization}/projects/{project}/sandbox-template-builds",
    summary: "Start a build as the platform's SDK does: the answer names the builder sandbox to create",
    params: PlatformScope,
    body: PlatformTemplateBuildRequest,
    status: 200,
    response: PlatformTemplateBuild,
    errors: ["INVALID_DOCKERFILE", "TEMPLATE_EXISTS", "PROJECT_NOT_FOUND"],
  },
  completePlatformTemplateBuild: {
    ...common,
    tag: "platform",
    method: "POST",
    path: "/platform/v1/organizations/{organization}/projects/{project}/sandbox-template-builds/{build_id}/complete",
    summary: "Finish a platform-SDK build: the server builds from the context the builder sandbox holds",
    params: Type.Object({
      ...PlatformScope.properties,
      build_id: Type.String({ minLength: 1, maxLength: 100 }),
    }),
    body: PlatformCompleteBuildRequest,
    status: 200,
    response: PlatformTemplate,
    errors: ["BUILD_NOT_FOUND", "BUILD_FAILED", "FILE_TOO_LARGE", "PROJECT_NOT_FOUND"],
  },
});
