/**
 * The error catalog: every error code the service answers with, its HTTP status and its default message.
 * One table for the control API, the runtime daemon, the proxy and the documents API, so a code means the
 * same thing everywhere. `satisfies` makes an entry without a status or message a type error.
 */
export const errorCatalog = {
  // Request shape (every API)
  INVALID_JSON: { status: 400, message: "The request body is not valid JSON" },
  INVALID_REQUEST: { status: 400, message: "The request does not match the contract" },
  INVALID_QUERY_PARAMS: { status: 400, message: "The query parameters do not match the contract" },
  INVALID_CONFIGURATION: { status: 400, message: "The options are not valid together" },
  INVALID_CURSOR: { status: 400, message: "The pagination cursor is not valid" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "The request's Content-Type is not accepted here" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "The request body is larger than the configured limit" },
  ROUTE_NOT_FOUND: { status: 404, message: "No such route" },
  METHOD_NOT_ALLOWED: { status: 405, message: "The method is not allowed on this route" },
  UPGRADE_REQUIRED: { status: 426, message: "This route is a WebSocket: send an Upgrade request" },
  NOT_IMPLEMENTED: { status: 501, message: "This operation is part of the contract but not served yet" },
  INTERNAL_ERROR: { status: 500, message: "Internal server error" },
  CONSOLE_NOT_BUILT: {
    status: 503,
    message: "The web console is not built: run scripts/install.sh or npm run build:console",
  },

  // Authentication and authorization
  UNAUTHORIZED: { status: 401, message: "The API key is invalid, deleted, or not sent as a Bearer token" },
  FORBIDDEN: { status: 403, message: "The credentials do not allow this operation" },

  // Control API entities
  SANDBOX_NOT_FOUND: { status: 404, message: "Sandbox not found" },
  SANDBOX_NAME_TAKEN: { status: 409, message: "A live sandbox of this project already has this name" },
  SANDBOX_NOT_RUNNING: { status: 503, message: "The sandbox is not running" },
  POOL_NOT_FOUND: { status: 404, message: "Sandbox pool not found" },
  POOL_IN_USE: { status: 409, message: "The sandbox pool still has sandboxes" },
  POOL_AT_CAPACITY: { status: 409, message: "The pool has no warm sandbox and is at max_containers" },
  SNAPSHOT_NOT_FOUND: { status: 404, message: "Snapshot not found" },
  TEMPLATE_NOT_FOUND: { status: 404, message: "Template not found" },
  TEMPLATE_EXISTS: { status: 409, message: "A template with this name already exists in the project" },
  TEMPLATE_IN_USE: { status: 409, message: "A sandbox is being created from the template" },
  IMAGE_NOT_FOUND: { status: 404, message: "Image not found" },
  IMAGE_EXISTS: { status: 409, message: "The project already has an image with this name" },
  INVALID_IMAGE: {
    status: 400,
    message: "The image is not a valid OCI reference, docker save or OCI archive",
  },
  REGISTRY_CREDENTIAL_NOT_FOUND: { status: 404, message: "The project has no credentials for this registry" },
  IMAGES_UNAVAILABLE: { status: 409, message: "This host runs no sandboxes, so it keeps no images" },
  BUILD_NOT_FOUND: { status: 404, message: "Template build not found" },
  INVALID_DOCKERFILE: { status: 400, message: "The Dockerfile cannot be built" },
  BUILD_FAILED: { status: 422, message: "The template build failed" },
  SNAPSHOT_IN_USE: {
    status: 409,
    message: "The snapshot is used by a pool or a sandbox being created from it",
  },
  SNAPSHOT_TYPE_UNSUPPORTED: {
    status: 501,
    message: "This host cannot take memory snapshots (no CRIU); take a filesystem snapshot",
  },
  SANDBOX_BUSY: { status: 409, message: "The sandbox's state does not allow this now" },
  FILE_SYSTEM_NOT_FOUND: { status: 404, message: "File system not found" },
  FILE_SYSTEM_EXISTS: { status: 409, message: "A file system with this name already exists in the project" },
  MOUNT_CONFLICT: { status: 409, message: "The mount cannot be applied in the sandbox's current state" },
  INVALID_MOUNT: { status: 400, message: "The mount is not valid" },
  KEY_NOT_FOUND: { status: 404, message: "API key not found" },
  PROJECT_NOT_FOUND: { status: 404, message: "Project not found" },
  PROJECT_EXISTS: { status: 409, message: "A project with this name already exists" },

  // Sandbox proxy
  MISSING_SANDBOX_ID: {
    status: 400,
    message: "The request names no sandbox (Host label or sandbox-id header)",
  },
  PORT_NOT_EXPOSED: { status: 403, message: "The port is not in the sandbox's exposed ports" },
  CONNECTION_FAILED: { status: 502, message: "The sandbox did not accept the connection" },
  READ_TIMEOUT: { status: 504, message: "The sandbox did not answer in time" },

  // Runtime daemon
  PROCESS_NOT_FOUND: { status: 404, message: "Process not found" },
  STDIN_NOT_WRITABLE: { status: 400, message: "The process's stdin is not a writable pipe" },
  INVALID_SIGNAL: { status: 400, message: "The signal is not a valid signal number or name" },
  INVALID_USER: { status: 400, message: "The user does not exist or is not in a valid form" },
  INVALID_WORKING_DIR: { status: 400, message: "The working directory does not exist or is not a directory" },
  SPAWN_FAILED: { status: 400, message: "The process could not be started" },
  NOT_FOUND: { status: 404, message: "No such file or directory" },
  PATH_TRAVERSAL: { status: 403, message: "The path contains '..'" },
  IS_DIRECTORY: { status: 400, message: "The path is a directory" },
  NOT_A_DIRECTORY: { status: 400, message: "The path is not a directory" },
  PERMISSION_DENIED: { status: 403, message: "Permission denied" },
  NO_SPACE: { status: 507, message: "No space left on the sandbox's disk" },
  SESSION_NOT_FOUND: { status: 404, message: "PTY session not found" },
  TOO_MANY_SESSIONS: { status: 429, message: "The sandbox already has the maximum number of PTY sessions" },
  INVALID_TOKEN: { status: 403, message: "The PTY token is not valid for this session" },
  INVALID_PORT: { status: 400, message: "The port is missing, invalid, or 0" },
  SSH_FAILED: { status: 500, message: "The SSH daemon could not be started" },

  // Documents API
  ENTITY_NOT_FOUND: { status: 404, message: "Entity not found" },
  ENTITY_ALREADY_EXISTS: { status: 409, message: "An entity with this name already exists" },
  INVALID_JSON_SCHEMA: { status: 400, message: "The structured-extraction JSON schema is not valid" },
  INVALID_PAGE_CLASSIFICATION: { status: 400, message: "The page classification is not valid" },
  INVALID_FILE: { status: 400, message: "The file is not valid" },
  INVALID_PAGE_RANGE: { status: 400, message: "The page range is not valid" },
  INVALID_MIME_TYPE: { status: 400, message: "The MIME type is not supported" },
  INVALID_DATASET_NAME: { status: 400, message: "Dataset names use only letters, digits, '-' and '_'" },
  INVALID_MULTIPART: { status: 400, message: "The multipart body is not valid" },
  FILE_TOO_LARGE: { status: 413, message: "The file is larger than the configured limit" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(errorCatalog, value);
}

export function statusOf(code: ErrorCode): number {
  return errorCatalog[code].status;
}

/**
 * The one error body of every API. `error` is what the runtime and control clients read, `message` what the
 * documents clients read; both carry the same text.
 */
export interface ErrorBody {
  error: string;
  code: string;
  message: string;
}

export function errorBody(code: ErrorCode, message: string = errorCatalog[code].message): ErrorBody {
  return { error: message, code, message };
}

/** An error that carries a catalog code; servers turn it into its status and body. */
export class ServiceError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, message: string = errorCatalog[code].message) {
    super(message);
    this.name = "ServiceError";
    this.code = code;
    this.status = errorCatalog[code].status;
  }
}
