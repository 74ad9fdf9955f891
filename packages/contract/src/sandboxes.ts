import Type, { type Static } from "typebox";
import { closed, Direction, EpochMs, MANAGEMENT_PORT, nullable, Port, Rfc3339 } from "./common.ts";
import { defineRoutes } from "./route.ts";

export const SandboxStatus = Type.Enum(
  ["pending", "running", "snapshotting", "suspending", "suspended", "terminated"],
  { $id: "SandboxStatus" },
);
export type SandboxStatus = Static<typeof SandboxStatus>;

export const PendingReason = Type.Enum([
  "scheduling",
  "waiting_for_container",
  "no_executors_available",
  "no_resources_available",
  "pool_at_capacity",
  "building_image",
  "pulling_image",
]);

export { MANAGEMENT_PORT, Port };

/** A sandbox or pool name, a file system name: ASCII letters, digits, `_` and `-`. */
export const EntityName = Type.String({
  minLength: 1,
  maxLength: 63,
  pattern: "^[A-Za-z0-9][A-Za-z0-9_-]*$",
});

export const ContainerResourcesInfo = Type.Object(
  {
    cpus: Type.Number({ exclusiveMinimum: 0, maximum: 256 }),
    memory_mb: Type.Integer({ minimum: 16, maximum: 1048576 }),
    disk_mb: Type.Integer({ minimum: 16, maximum: 16777216 }),
    /** Same as disk_mb: the name the public SDKs read. */
    ephemeral_disk_mb: Type.Integer({ minimum: 16, maximum: 16777216 }),
  },
  { $id: "ContainerResourcesInfo" },
);
export type ContainerResourcesInfo = Static<typeof ContainerResourcesInfo>;

/** Resources asked for at create time; every field has a default, and `ephemeral_disk_mb` is an alias of disk_mb. */
export const ResourcesRequest = Type.Object(
  {
    cpus: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 256, default: 1.0 })),
    memory_mb: Type.Optional(Type.Integer({ minimum: 16, maximum: 1048576, default: 1024 })),
    disk_mb: Type.Optional(Type.Integer({ minimum: 16, maximum: 16777216 })),
    ephemeral_disk_mb: Type.Optional(Type.Integer({ minimum: 16, maximum: 16777216 })),
  },
  closed,
);

/** A domain name, an IPv4 address or an IPv4 CIDR. */
export const EgressDestination = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern:
    "^(?:(?:\\d{1,3}\\.){3}\\d{1,3}(?:/\\d{1,2})?|(?:\\*\\.)?(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)*[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.?)$",
});

export const SandboxNetworkAccessControl = Type.Object(
  {
    allow_internet_access: Type.Optional(Type.Boolean({ default: true })),
    allow_out: Type.Optional(Type.Array(EgressDestination, { maxItems: 1000 })),
    deny_out: Type.Optional(Type.Array(EgressDestination, { maxItems: 1000 })),
  },
  { ...closed, $id: "SandboxNetworkAccessControl" },
);
export type SandboxNetworkAccessControl = Static<typeof SandboxNetworkAccessControl>;

/** Absolute guest path, not `/`, no `..` segment. Normalization happens in the service. */
export const MountPath = Type.String({
  minLength: 2,
  maxLength: 4096,
  pattern: "^/(?!.*(?:^|/)\\.\\.(?:/|$)).*[^/]$|^/(?!.*(?:^|/)\\.\\.(?:/|$)).+/$",
});

export const FileSystemMount = Type.Object(
  {
    file_system_id: EntityName,
    mount_path: MountPath,
    read_only: Type.Optional(Type.Boolean({ default: false })),
    prefetch: Type.Optional(Type.Boolean({ default: false })),
    snapshot_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { ...closed, $id: "FileSystemMount" },
);
export type FileSystemMount = Static<typeof FileSystemMount>;

/** Limit of mounts per sandbox. */
export const MAX_MOUNTS = 8;

/**
 * Why a pending sandbox waits (`pending_reason`). The spec's values, then the service's own in the same snake_case:
 * `building_image` (the built-in image, once per machine) and `pulling_image` (an OCI image not yet on the host).
 */
export type PendingReason = Static<typeof PendingReason>;

/**
 * Why a sandbox ended other than by a delete or its timeout (`termination_reason`, with `error_details`). One rule
 * names every value, the spec's and the service's own:
 * - something the request names (an image, a file system, a snapshot, a mount) is missing or cannot be used:
 *   PascalCase `<Thing><Failure>`, as the spec's `FileSystemNotFound`;
 * - the service's own course (capacity, a delete while pending, a start, a host or a daemon failing): snake_case,
 *   as the spec's `no_capacity`.
 * The executor's start errors, the sandbox record, the SDK's SandboxTerminatedError and the console all use it.
 */
export const TerminationReason = Type.Enum(
  [
    // the spec's
    "FileSystemNotFound",
    "FileSystemSnapshotNotFound",
    "ImageNotFound",
    "no_capacity",
    "cancelled",
    // the service's own
    "ImagePullFailed",
    "ImagePullUnauthorized",
    "MountFailed",
    "start_failed",
    "executor_lost",
    "daemon_unreachable",
  ],
  { $id: "TerminationReason" },
);
export type TerminationReason = Static<typeof TerminationReason>;

export const Sandbox = Type.Object(
  {
    /** The public SDKs read this as `sandbox_id` and refuse a record that carries both names. */
    id: Type.String(),
    namespace: Type.String(),
    image: Type.Optional(nullable(Type.String())),
    status: SandboxStatus,
    pending_reason: Type.Optional(nullable(PendingReason)),
    outcome: Type.Optional(nullable(Type.String())),
    termination_reason: Type.Optional(nullable(TerminationReason)),
    error_details: Type.Optional(nullable(Type.String())),
    created_at: EpochMs,
    /** When the sandbox ended; null while it lives. */
    terminated_at: Type.Optional(nullable(EpochMs)),
    container_id: Type.Optional(nullable(Type.String())),
    executor_id: Type.Optional(nullable(Type.String())),
    resources: ContainerResourcesInfo,
    timeout_secs: Type.Integer({ minimum: 0 }),
    entrypoint: Type.Optional(nullable(Type.Array(Type.String()))),
    ingress_endpoint: Type.Optional(nullable(Type.String())),
    sandbox_url: Type.Optional(nullable(Type.String())),
    pool_id: Type.Optional(nullable(Type.String())),
    network_policy: Type.Optional(nullable(SandboxNetworkAccessControl)),
    /** Same as network_policy: the name the public SDKs read. */
    network: Type.Optional(nullable(SandboxNetworkAccessControl)),
    allow_unauthenticated_access: Type.Boolean(),
    exposed_ports: Type.Optional(nullable(Type.Array(Port))),
    template_id: Type.Optional(nullable(Type.String())),
    name: Type.Optional(nullable(Type.String())),
    file_systems: Type.Optional(Type.Array(FileSystemMount)),
  },
  { $id: "Sandbox" },
);
export type Sandbox = Static<typeof Sandbox>;

/** One step of a sandbox's start on its executor, in ms from when the executor began it. Steps may overlap. */
export const StartStep = Type.Object({
  /** The executor's step: `image`, `cgroups`, `disk.*`, `network.*`, `launch`, `daemon.*`, … */
  step: Type.String(),
  from_ms: Type.Number({ minimum: 0 }),
  to_ms: Type.Number({ minimum: 0 }),
});
export type StartStep = Static<typeof StartStep>;

/**
 * Where a sandbox's start spent its time: waiting for an executor (created_at → start_began_at), then each
 * step the executor took until the daemon answered (running_at). Steps are empty until the start has ended.
 */
export const SandboxStartTimeline = Type.Object(
  {
    sandbox_id: Type.String(),
    status: SandboxStatus,
    created_at: EpochMs,
    /** When an executor began building the sandbox; null until then. */
    start_began_at: nullable(EpochMs),
    /** When the sandbox was reported running; null until then (and for a start that failed). */
    running_at: nullable(EpochMs),
    steps: Type.Array(StartStep),
  },
  { $id: "SandboxStartTimeline" },
);
export type SandboxStartTimeline = Static<typeof SandboxStartTimeline>;

export const CreateSandboxRequest = Type.Object(
  {
    image: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    resources: Type.Optional(ResourcesRequest),
    /** Seconds until the sandbox is ended; 0 means the server's maximum. */
    timeout_secs: Type.Optional(Type.Integer({ minimum: 0, maximum: 31536000 })),
    entrypoint: Type.Optional(Type.Array(Type.String({ maxLength: 65536 }), { maxItems: 1024 })),
    network: Type.Optional(nullable(SandboxNetworkAccessControl)),
    snapshot_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    name: Type.Optional(EntityName),
    file_systems: Type.Optional(Type.Array(FileSystemMount, { maxItems: MAX_MOUNTS })),
    allow_unauthenticated_access: Type.Optional(Type.Boolean()),
    exposed_ports: Type.Optional(Type.Array(Port, { maxItems: 64, uniqueItems: true })),
    template_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    pool_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    max_pending_secs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400 })),
    secret_names: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 })),
  },
  { ...closed, $id: "CreateSandboxRequest" },
);
export type CreateSandboxRequest = Static<typeof CreateSandboxRequest>;

export const CreateSandboxResponse = Type.Object(
  {
    sandbox_id: Type.String(),
    status: SandboxStatus,
    pending_reason: Type.Optional(nullable(PendingReason)),
    sandbox_url: Type.Optional(nullable(Type.String())),
    ingress_endpoint: Type.Optional(nullable(Type.String())),
    name: Type.Optional(nullable(Type.String())),
    routing_hint: Type.Optional(nullable(Type.String())),
    claim_configuration_applied: Type.Optional(Type.Boolean()),
  },
  { $id: "CreateSandboxResponse" },
);
export type CreateSandboxResponse = Static<typeof CreateSandboxResponse>;

export const UpdateSandboxRequest = Type.Object(
  {
    name: Type.Optional(EntityName),
    allow_unauthenticated_access: Type.Optional(Type.Boolean()),
    /** Replaces the exposed-port list; empty reverts to the management port only. */
    exposed_ports: Type.Optional(Type.Array(Port, { maxItems: 64, uniqueItems: true })),
    /** Omitted: unchanged; an object replaces the policy; null clears it. */
    network: Type.Optional(nullable(SandboxNetworkAccessControl)),
  },
  { ...closed, $id: "UpdateSandboxRequest" },
);
export type UpdateSandboxRequest = Static<typeof UpdateSandboxRequest>;

export const ListSandboxesQuery = Type.Object(
  {
    status: Type.Optional(Type.Enum(["running"])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
    direction: Type.Optional(Direction),
  },
  closed,
);

export const ListSandboxesResponse = Type.Object(
  {
    sandboxes: Type.Array(Sandbox),
    prev_cursor: Type.Optional(nullable(Type.String())),
    next_cursor: Type.Optional(nullable(Type.String())),
  },
  { $id: "ListSandboxesResponse" },
);

export const SandboxParams = Type.Object({
  sandbox_id: Type.String({ minLength: 1, maxLength: 100, description: "sandbox id or name" }),
});

export const DetachMountRequest = Type.Object({ mount_path: MountPath }, closed);

export const SnapshotType = Type.Enum(["filesystem", "memory"]);
/** `local_ready` is a status the public SDKs know; a local snapshot is `completed` as soon as it is ready. */
export const SnapshotStatus = Type.Enum(["in_progress", "local_ready", "completed", "failed"]);

export const SnapshotKind = Type.Enum(["sandbox", "build_cache"]);

/** The build cache's snapshots are listed only when asked for. */
export const ListSnapshotsQuery = Type.Object({ include: Type.Optional(Type.Enum(["build_cache"])) });
export type ListSnapshotsQuery = Static<typeof ListSnapshotsQuery>;

export const SnapshotRequest = Type.Object({ snapshot_type: Type.Optional(SnapshotType) }, closed);

export const Snapshot = Type.Object(
  {
    snapshot_id: Type.String(),
    namespace: Type.String(),
    sandbox_id: Type.String(),
    /** The image the sandbox ran; a sandbox created from the snapshot runs it again. */
    base_image: Type.String(),
    snapshot_type: SnapshotType,
    status: SnapshotStatus,
    /** Why it failed; null otherwise. */
    error: Type.Optional(nullable(Type.String())),
    /** Bytes the snapshot takes on disk. */
    size_bytes: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    /** Size of the root disk it restores, bytes. */
    rootfs_disk_bytes: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    /**
     * `sandbox`: taken of a sandbox by its owner. `build_cache`: a cached step of a template build, removed with
     * the last template that uses it or when the project's build cache is full.
     */
    kind: Type.Optional(SnapshotKind),
    created_at: EpochMs,
  },
  { $id: "Snapshot" },
);
export type Snapshot = Static<typeof Snapshot>;

export const SnapshotParams = Type.Object({ snapshot_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreatePoolRequest = Type.Object(
  {
    image: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    resources: Type.Optional(ResourcesRequest),
    timeout_secs: Type.Optional(Type.Integer({ minimum: 0, maximum: 31536000 })),
    entrypoint: Type.Optional(Type.Array(Type.String({ maxLength: 65536 }), { maxItems: 1024 })),
    max_containers: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
    warm_containers: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
    network: Type.Optional(nullable(SandboxNetworkAccessControl)),
  },
  { ...closed, $id: "CreatePoolRequest" },
);
export type CreatePoolRequest = Static<typeof CreatePoolRequest>;

export const SandboxPool = Type.Object(
  {
    pool_id: Type.String(),
    namespace: Type.String(),
    image: Type.Optional(nullable(Type.String())),
    resources: ContainerResourcesInfo,
    timeout_secs: Type.Integer({ minimum: 0 }),
    entrypoint: Type.Optional(nullable(Type.Array(Type.String()))),
    max_containers: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    warm_containers: Type.Integer({ minimum: 0 }),
    network: Type.Optional(nullable(SandboxNetworkAccessControl)),
    /** The pool's live sandboxes: `Idle` (warm, unclaimed) or `Running` (claimed, with its sandbox_id). */
    containers: Type.Array(
      Type.Object({
        id: Type.String(),
        state: Type.Enum(["Idle", "Running"]),
        sandbox_id: Type.Optional(nullable(Type.String())),
        executor_id: Type.String(),
      }),
    ),
    created_at: EpochMs,
    updated_at: EpochMs,
  },
  { $id: "SandboxPool" },
);
export type SandboxPool = Static<typeof SandboxPool>;

export const PoolParams = Type.Object({ pool_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const ClaimPoolSandboxRequest = Type.Object(
  { file_systems: Type.Optional(Type.Array(FileSystemMount, { maxItems: MAX_MOUNTS })) },
  closed,
);

export const FileSystem = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    description: Type.Optional(nullable(Type.String())),
    status: Type.Enum(["ready", "deleting"]),
    created_at: Rfc3339,
    updated_at: Rfc3339,
  },
  { $id: "FileSystem" },
);
export type FileSystem = Static<typeof FileSystem>;

export const CreateFileSystemRequest = Type.Object(
  { name: EntityName, description: Type.Optional(nullable(Type.String({ maxLength: 1000 }))) },
  closed,
);

export const FileSystemParams = Type.Object({ file_system: Type.String({ minLength: 1, maxLength: 100 }) });
export const FileSystemPathQuery = Type.Object(
  { path: Type.String({ minLength: 1, maxLength: 4096 }) },
  closed,
);

export const FileSystemTreeEntry = Type.Object({
  path: Type.String(),
  is_dir: Type.Boolean(),
  size: Type.Integer({ minimum: 0 }),
  modified_at: EpochMs,
});

export const FileSystemSnapshot = Type.Object(
  {
    snapshot_id: Type.String(),
    file_system_id: Type.String(),
    message: Type.Optional(nullable(Type.String())),
    permanent: Type.Boolean(),
    created_at: Rfc3339,
  },
  { $id: "FileSystemSnapshot" },
);

/** A terminated sandbox as the archive lists it: the record, and when it was archived (it ended). */
export const ArchivedSandbox = Type.Object(
  { ...Sandbox.properties, archived_at: EpochMs },
  { $id: "ArchivedSandbox" },
);

export const ListArchivedSandboxesResponse = Type.Object(
  {
    sandboxes: Type.Array(ArchivedSandbox),
    prev_cursor: Type.Optional(nullable(Type.String())),
    next_cursor: Type.Optional(nullable(Type.String())),
  },
  { $id: "ListArchivedSandboxesResponse" },
);

/** Log levels as the public SDKs number them in `level`: trace 1, debug 2, info 3, warn 4, error 5, fatal 6. */
export const LOG_LEVELS = { trace: 1, debug: 2, info: 3, warn: 4, error: 5, fatal: 6 } as const;

/** The query of a sandbox's logs, in the public SDKs' names (repeated `level` and `processId`). */
export const SandboxLogsQuery = Type.Object(
  {
    level: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 6 }), { maxItems: 6 })),
    processId: Type.Optional(Type.Array(Type.String({ pattern: "^\\d{1,10}$" }), { maxItems: 1000 })),
    nextToken: Type.Optional(Type.String({ maxLength: 100 })),
    head: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    tail: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    /** Only records whose body contains this text. */
    body: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  },
  closed,
);

/** One log record of a sandbox: a line of a process's output. camelCase, as the public SDKs read it. */
export const SandboxLogSignal = Type.Object({
  /** Milliseconds since the epoch. */
  timestamp: EpochMs,
  uuid: Type.String({ format: "uuid" }),
  namespace: Type.String(),
  application: Type.String(),
  sandboxId: Type.String(),
  /** `[name, value]` pairs: process_id, process_pid, process_command, stream. */
  resourceAttributes: Type.Array(Type.Tuple([Type.String(), Type.String()])),
  body: Type.String(),
  /** A JSON object as text: `{"stream":"stdout"}`. */
  logAttributes: Type.String(),
  /** LOG_LEVELS: info for stdout, error for stderr. */
  level: Type.Integer({ minimum: 1, maximum: 6 }),
});

export const SandboxLogsResponse = Type.Object(
  {
    logs: Type.Array(SandboxLogSignal),
    /** Pass back as `nextToken` (with the same `head`) for the next page; absent on the last page. */
    nextToken: Type.Optional(Type.String()),
  },
  { $id: "SandboxLogsResponse" },
);

export const SandboxLogProcesses = Type.Object(
  {
    processes: Type.Array(
      Type.Object({
        processId: Type.String(),
        processPid: Type.String(),
        processCommand: Type.String(),
        processManagedId: Type.String(),
        processManagedName: Type.String(),
        firstSeen: EpochMs,
        lastSeen: EpochMs,
        logCount: Type.Integer({ minimum: 0 }),
      }),
    ),
  },
  { $id: "SandboxLogProcesses" },
);

export const CopySandboxQuery = Type.Object(
  { times: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })) },
  closed,
);

/**
 * What a template's sandboxes start their processes with, as a Dockerfile build left it (`ENV`, `WORKDIR`,
 * `USER`, `ENTRYPOINT`, `CMD`); null fields were not set.
 */
export const TemplateConfig = Type.Object(
  {
    env: Type.Record(Type.String(), Type.String()),
    working_dir: nullable(Type.String()),
    user: nullable(Type.String()),
    entrypoint: nullable(Type.Array(Type.String())),
    cmd: nullable(Type.Array(Type.String())),
  },
  { $id: "TemplateConfig" },
);
export type TemplateConfig = Static<typeof TemplateConfig>;

/** A named starting point for sandboxes: a root disk made from a snapshot or from a directory tree. */
export const Template = Type.Object(
  {
    template_id: Type.String(),
    name: Type.String(),
    namespace: Type.String(),
    /** The image its sandboxes run; the template's files lie over it. */
    base_image: Type.String(),
    /** `snapshot`: the snapshot's disk (which cannot be deleted while the template uses it); `tree`: a tar's. */
    source: Type.Enum(["snapshot", "tree"]),
    snapshot_id: Type.Optional(nullable(Type.String())),
    size_bytes: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    /** Process defaults of a template made by a Dockerfile build; null for the others. */
    config: Type.Optional(nullable(TemplateConfig)),
    created_at: EpochMs,
  },
  { $id: "Template" },
);
export type Template = Static<typeof Template>;

export const TemplateParams = Type.Object({
  template: Type.String({ minLength: 1, maxLength: 100, description: "template name or id" }),
});

const sandboxLifecycle = {
  createSandbox: {
    method: "POST",
    path: "/sandboxes",
    summary: "Create a sandbox; answers at once with status pending",
    body: CreateSandboxRequest,
    status: 200,
    response: CreateSandboxResponse,
    errors: [
      "SANDBOX_NAME_TAKEN",
      "POOL_NOT_FOUND",
      "SNAPSHOT_NOT_FOUND",
      "TEMPLATE_NOT_FOUND",
      "POOL_AT_CAPACITY",
    ],
  },
  listSandboxes: {
    method: "GET",
    path: "/sandboxes",
    summary: "List the project's sandboxes, newest first; status=running gives only the live set",
    query: ListSandboxesQuery,
    status: 200,
    response: ListSandboxesResponse,
    errors: ["INVALID_CURSOR"],
  },
  getSandbox: {
    method: "GET",
    path: "/sandboxes/{sandbox_id}",
    summary: "Get a sandbox by id or name",
    params: SandboxParams,
    status: 200,
    response: Sandbox,
    errors: ["SANDBOX_NOT_FOUND"],
  },
  getSandboxStartTimeline: {
    method: "GET",
    path: "/sandboxes/{sandbox_id}/start-timeline",
    summary: "Where the sandbox's start spent its time: the wait for an executor, then each executor step",
    params: SandboxParams,
    status: 200,
    response: SandboxStartTimeline,
    errors: ["SANDBOX_NOT_FOUND"],
  },
  updateSandbox: {
    method: "PATCH",
    path: "/sandboxes/{sandbox_id}",
    summary: "Update name, unauthenticated access, exposed ports and network policy",
    params: SandboxParams,
    body: UpdateSandboxRequest,
    status: 200,
    response: Sandbox,
    errors: ["SANDBOX_NOT_FOUND", "SANDBOX_NAME_TAKEN"],
  },
  deleteSandbox: {
    method: "DELETE",
    path: "/sandboxes/{sandbox_id}",
    summary: "Terminate a sandbox; idempotent, answers with the final record",
    params: SandboxParams,
    status: 200,
    response: Sandbox,
    errors: ["SANDBOX_NOT_FOUND"],
  },
} as const;

/** Every sandbox, snapshot, pool and file-system route is served plain and under NAMESPACE_PREFIX too. */
const common = {
  tag: "sandboxes",
  surface: "control",
  auth: "apiKey",
  responseKind: "json",
  namespaced: true,
} as const;

function withCommon<const T extends Record<string, object>>(routes: T, tag: string) {
  const out: Record<string, unknown> = {};
  for (const [name, route] of Object.entries(routes)) out[name] = { ...common, tag, ...route };
  return out as { [K in keyof T]: Omit<typeof common, keyof T[K]> & T[K] };
}

export const sandboxRoutes = defineRoutes({
  ...withCommon(sandboxLifecycle, "sandboxes"),
  ...withCommon(
    {
      getSandboxLogs: {
        method: "GET",
        path: "/sandboxes/{sandbox_id}/logs",
        summary: "The sandbox's process output as log records (the live daemon's; none once it ended)",
        params: SandboxParams,
        query: SandboxLogsQuery,
        status: 200,
        response: SandboxLogsResponse,
        errors: ["SANDBOX_NOT_FOUND"],
      },
      listSandboxLogProcesses: {
        method: "GET",
        path: "/sandboxes/{sandbox_id}/processes",
        summary: "The processes that have output in the sandbox's logs",
        params: SandboxParams,
        status: 200,
        response: SandboxLogProcesses,
        errors: ["SANDBOX_NOT_FOUND"],
      },
      copySandbox: {
        method: "POST",
        path: "/sandboxes/{sandbox_id}/copy",
        summary: "Start running copies of a sandbox, filesystem included",
        params: SandboxParams,
        query: CopySandboxQuery,
        status: 200,
        response: Type.Object({
          source_sandbox_id: Type.String(),
          sandboxes: Type.Array(CreateSandboxResponse),
        }),
        errors: ["SANDBOX_NOT_FOUND"],
      },
      attachFileSystem: {
        method: "POST",
        path: "/sandboxes/{sandbox_id}/file_systems",
        summary: "Attach a named file system at a guest path; applied asynchronously",
        params: SandboxParams,
        body: FileSystemMount,
        status: 200,
        response: Sandbox,
        errors: ["SANDBOX_NOT_FOUND", "INVALID_MOUNT", "MOUNT_CONFLICT"],
        textErrors: true,
      },
      detachFileSystem: {
        method: "DELETE",
        path: "/sandboxes/{sandbox_id}/file_systems",
        summary: "Detach the mount at a guest path",
        params: SandboxParams,
        body: DetachMountRequest,
        status: 200,
        response: Sandbox,
        errors: ["SANDBOX_NOT_FOUND", "INVALID_MOUNT"],
      },
      suspendSandbox: {
        method: "POST",
        path: "/sandboxes/{sandbox_id}/suspend",
        summary: "Suspend a named sandbox (processes frozen, memory kept); 200 when already suspended",
        params: SandboxParams,
        status: 202,
        response: Sandbox,
        errors: ["SANDBOX_NOT_FOUND", "SANDBOX_BUSY"],
      },
      resumeSandbox: {
        method: "POST",
        path: "/sandboxes/{sandbox_id}/resume",
        summary: "Resume a suspended sandbox; 200 when already running",
        params: SandboxParams,
        status: 202,
        response: Sandbox,
        errors: ["SANDBOX_NOT_FOUND", "SANDBOX_BUSY"],
      },
      snapshotSandbox: {
        method: "POST",
        path: "/sandboxes/{sandbox_id}/snapshot",
        summary:
          "Snapshot a sandbox's filesystem, the sandbox frozen meanwhile (running → snapshotting → running)",
        params: SandboxParams,
        body: SnapshotRequest,
        status: 202,
        response: Type.Object({ snapshot_id: Type.String(), status: SnapshotStatus }),
        errors: ["SANDBOX_NOT_FOUND", "SANDBOX_BUSY", "SNAPSHOT_TYPE_UNSUPPORTED"],
      },
    },
    "sandboxes",
  ),
  ...withCommon(
    {
      listArchivedSandboxes: {
        method: "GET",
        path: "/archived-sandboxes",
        summary: "List the project's terminated sandboxes, most recently ended first",
        query: Type.Object(
          {
            limit: ListSandboxesQuery.properties.limit,
            cursor: ListSandboxesQuery.properties.cursor,
            direction: ListSandboxesQuery.properties.direction,
          },
          closed,
        ),
        status: 200,
        response: ListArchivedSandboxesResponse,
        errors: ["INVALID_CURSOR"],
      },
      getArchivedSandbox: {
        method: "GET",
        path: "/archived-sandboxes/{sandbox_id}",
        summary: "Get a terminated sandbox by id",
        params: SandboxParams,
        status: 200,
        response: ArchivedSandbox,
        errors: ["SANDBOX_NOT_FOUND"],
      },
    },
    "sandboxes",
  ),
  ...withCommon(
    {
      listSnapshots: {
        method: "GET",
        path: "/snapshots",
        summary: "List the project's sandbox snapshots (`include=build_cache`: the build cache's too)",
        query: ListSnapshotsQuery,
        status: 200,
        response: Type.Object({ snapshots: Type.Array(Snapshot) }),
      },
      getSnapshot: {
        method: "GET",
        path: "/snapshots/{snapshot_id}",
        summary: "Get a snapshot",
        params: SnapshotParams,
        status: 200,
        response: Snapshot,
        errors: ["SNAPSHOT_NOT_FOUND"],
      },
      deleteSnapshot: {
        method: "DELETE",
        path: "/snapshots/{snapshot_id}",
        summary: "Delete a snapshot",
        params: SnapshotParams,
        status: 204,
        responseKind: "empty",
        errors: ["SNAPSHOT_NOT_FOUND", "SNAPSHOT_IN_USE"],
      },
    },
    "snapshots",
  ),
  ...withCommon(
    {
      createTemplate: {
        method: "POST",
        path: "/templates",
        summary: "Make a template from a completed snapshot",
        body: Type.Object(
          { name: EntityName, snapshot_id: Type.String({ minLength: 1, maxLength: 100 }) },
          closed,
        ),
        status: 200,
        response: Template,
        errors: ["TEMPLATE_EXISTS", "SNAPSHOT_NOT_FOUND"],
      },
      createTemplateFromTree: {
        method: "POST",
        path: "/templates/{template}/tree",
        summary:
          "Make a template named {template} from a tar of a directory tree, laid over the default image or ?image=",
        params: Type.Object({ template: EntityName }),
        query: Type.Object(
          {
            image: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 255,
                description: "the image the tree lies over: an OCI reference or an uploaded image's name",
              }),
            ),
          },
          closed,
        ),
        bodyKind: "raw",
        status: 200,
        response: Template,
        errors: ["TEMPLATE_EXISTS", "INVALID_FILE", "INVALID_IMAGE"],
      },
      listTemplates: {
        method: "GET",
        path: "/templates",
        summary: "List the project's templates",
        status: 200,
        response: Type.Object({ templates: Type.Array(Template) }),
      },
      getTemplate: {
        method: "GET",
        path: "/templates/{template}",
        summary: "Get a template by name or id",
        params: TemplateParams,
        status: 200,
        response: Template,
        errors: ["TEMPLATE_NOT_FOUND"],
      },
      deleteTemplate: {
        method: "DELETE",
        path: "/templates/{template}",
        summary: "Delete a template",
        params: TemplateParams,
        status: 204,
        responseKind: "empty",
        errors: ["TEMPLATE_NOT_FOUND", "TEMPLATE_IN_USE"],
      },
    },
    "templates",
  ),
  ...withCommon(
    {
      createPool: {
        method: "POST",
        path: "/sandbox-pools",
        summary: "Create a pool of pre-started sandboxes",
        body: CreatePoolRequest,
        status: 200,
        response: Type.Object({ pool_id: Type.String(), namespace: Type.String() }),
      },
      listPools: {
        method: "GET",
        path: "/sandbox-pools",
        summary: "List the project's pools",
        status: 200,
        response: Type.Object({ pools: Type.Array(SandboxPool) }),
      },
      getPool: {
        method: "GET",
        path: "/sandbox-pools/{pool_id}",
        summary: "Get a pool",
        params: PoolParams,
        status: 200,
        response: SandboxPool,
        errors: ["POOL_NOT_FOUND"],
      },
      updatePool: {
        method: "PUT",
        path: "/sandbox-pools/{pool_id}",
        summary: "Replace a pool's settings",
        params: PoolParams,
        body: CreatePoolRequest,
        status: 200,
        response: SandboxPool,
        errors: ["POOL_NOT_FOUND"],
      },
      deletePool: {
        method: "DELETE",
        path: "/sandbox-pools/{pool_id}",
        summary: "Delete a pool with no sandboxes",
        params: PoolParams,
        status: 204,
        responseKind: "empty",
        errors: ["POOL_NOT_FOUND", "POOL_IN_USE"],
      },
      claimPoolSandbox: {
        method: "POST",
        path: "/sandbox-pools/{pool_id}/sandboxes",
        summary: "Claim a warm sandbox of the pool",
        params: PoolParams,
        body: ClaimPoolSandboxRequest,
        status: 200,
        response: CreateSandboxResponse,
        errors: ["POOL_NOT_FOUND"],
      },
    },
    "pools",
  ),
  ...withCommon(
    {
      createFileSystem: {
        method: "POST",
        path: "/file-systems",
        summary: "Create a named file system",
        body: CreateFileSystemRequest,
        status: 200,
        response: FileSystem,
        errors: ["FILE_SYSTEM_EXISTS"],
      },
      listFileSystems: {
        method: "GET",
        path: "/file-systems",
        summary: "List the project's file systems",
        status: 200,
        response: Type.Object({ file_systems: Type.Array(FileSystem) }),
      },
      deleteFileSystem: {
        method: "DELETE",
        path: "/file-systems/{file_system}",
        summary: "Delete a file system",
        params: FileSystemParams,
        status: 204,
        responseKind: "empty",
        errors: ["FILE_SYSTEM_NOT_FOUND"],
      },
      readFileSystemFile: {
        method: "GET",
        path: "/file-systems/{file_system}/files",
        summary: "Read a file of a file system's live head",
        params: FileSystemParams,
        query: FileSystemPathQuery,
        status: 200,
        responseKind: "bytes",
        errors: ["FILE_SYSTEM_NOT_FOUND", "NOT_FOUND", "PATH_TRAVERSAL"],
      },
      writeFileSystemFile: {
        method: "PUT",
        path: "/file-systems/{file_system}/files",
        summary: "Write a file (raw body) into a file system's live head",
        params: FileSystemParams,
        query: FileSystemPathQuery,
        bodyKind: "raw",
        status: 204,
        responseKind: "empty",
        errors: ["FILE_SYSTEM_NOT_FOUND", "PATH_TRAVERSAL"],
      },
      deleteFileSystemFile: {
        method: "DELETE",
        path: "/file-systems/{file_system}/files",
        summary: "Delete a file of a file system's live head",
        params: FileSystemParams,
        query: FileSystemPathQuery,
        status: 204,
        responseKind: "empty",
        errors: ["FILE_SYSTEM_NOT_FOUND", "NOT_FOUND", "PATH_TRAVERSAL"],
      },
      fileSystemTree: {
        method: "GET",
        path: "/file-systems/{file_system}/tree",
        summary: "List every entry of a file system's live head",
        params: FileSystemParams,
        status: 200,
        response: Type.Object({ entries: Type.Array(FileSystemTreeEntry) }),
        errors: ["FILE_SYSTEM_NOT_FOUND"],
      },
      pushFileSystem: {
        method: "POST",
        path: "/file-systems/{file_system}/push",
        summary: "Replace the live head with a tar of a directory; a message makes a permanent snapshot",
        params: FileSystemParams,
        query: Type.Object({ message: Type.Optional(Type.String({ maxLength: 1000 })) }, closed),
        bodyKind: "raw",
        status: 200,
        response: Type.Object({ snapshot_id: Type.Optional(nullable(Type.String())) }),
        errors: ["FILE_SYSTEM_NOT_FOUND", "INVALID_FILE"],
      },
      snapshotFileSystem: {
        method: "POST",
        path: "/file-systems/{file_system}/snapshots",
        summary: "Snapshot the live head as a permanent snapshot",
        params: FileSystemParams,
        body: Type.Object({ message: Type.Optional(Type.String({ maxLength: 1000 })) }, closed),
        status: 200,
        response: FileSystemSnapshot,
        errors: ["FILE_SYSTEM_NOT_FOUND"],
      },
      listFileSystemSnapshots: {
        method: "GET",
        path: "/file-systems/{file_system}/snapshots",
        summary: "List a file system's snapshots",
        params: FileSystemParams,
        status: 200,
        response: Type.Object({ snapshots: Type.Array(FileSystemSnapshot) }),
        errors: ["FILE_SYSTEM_NOT_FOUND"],
      },
    },
    "file-systems",
  ),
});
