import { type ErrorCode, errorCatalog, isErrorCode, type TerminationReason } from "@svc/contract";

/**
 * Every error of the SDK. An error the service answered with carries its catalog code (`HTTP_<status>` when the
 * answer had none) and HTTP status, and its class follows the status (below). A failure on the client's side,
 * with no error answer behind it, is a ClientError: status 0 and a code of ClientErrorCode.
 */
export class SvcError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(message: string, code: string, status: number) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }
}
/** 400, 413, 415: the request does not match the contract. */
export class InvalidRequestError extends SvcError {}
/** 401: the key is invalid, deleted or missing. */
export class AuthenticationError extends SvcError {}
/** 403: the credentials do not allow this. */
export class PermissionDeniedError extends SvcError {}
/** 404: the entity or route does not exist. */
export class NotFoundError extends SvcError {}
/** 409: the entity exists or is in the wrong state. */
export class ConflictError extends SvcError {}
/** 429: a limit was reached. */
export class RateLimitError extends SvcError {}
/** 501: the server does not serve this operation yet. */
export class NotImplementedError extends SvcError {}
/** 5xx: the server or a sandbox failed. */
export class ServerError extends SvcError {}

/**
 * The codes of the SDK's own failures (ClientError, status 0). Where the catalog has a code for the same failure
 * (CONNECTION_FAILED, SANDBOX_NOT_RUNNING, INVALID_FILE) it is that code; the others are the SDK's only.
 */
export type ClientErrorCode =
  /** The server or the sandbox could not be reached (ConnectionError). */
  | "CONNECTION_FAILED"
  /** A wait ran out of time (TimeoutError). */
  | "TIMEOUT"
  /** The sandbox ended with no termination reason (SandboxTerminatedError). */
  | "SANDBOX_TERMINATED"
  /** The sandbox has no URL to reach: it does not run. */
  | "SANDBOX_NOT_RUNNING"
  /** A runtime call on a Sandbox whose record is not loaded yet. */
  | "NO_RECORD"
  /** A file to upload cannot be read, or bytes came without a file name. */
  | "INVALID_FILE"
  /** A process's output stream ended before its exit. */
  | "STREAM_ENDED"
  /** A response that should carry a body has none. */
  | "EMPTY_BODY"
  /** The PTY session was deleted while attached. */
  | "SESSION_DELETED"
  /** A terminal used while not connected. */
  | "NOT_CONNECTED";

/**
 * A failure on the client's side, with no error answer of the server behind it: status 0. `instanceof ClientError`
 * catches the whole family; its subclasses name the kinds a caller most often handles apart.
 *
 * @example
 * try {
 *   await sandbox.waitUntilRunning({ timeoutMs: 60_000 });
 * } catch (error) {
 *   if (error instanceof SandboxTerminatedError) console.log("ended:", error.terminationReason);
 *   else if (error instanceof TimeoutError) console.log("still starting");
 *   else throw error;
 * }
 */
export class ClientError extends SvcError {
  constructor(message: string, code: ClientErrorCode | TerminationReason) {
    super(message, code, 0);
  }
}

/** The server (or a sandbox's proxy) could not be reached at all: code CONNECTION_FAILED. */
export class ConnectionError extends ClientError {
  constructor(message: string) {
    super(message, "CONNECTION_FAILED");
  }
}

/** A wait of the SDK ran out of time (a sandbox still pending, a parse job still running): code TIMEOUT. */
export class TimeoutError extends ClientError {
  constructor(message: string) {
    super(message, "TIMEOUT");
  }
}

/**
 * A sandbox ended while the SDK waited for it to run. `terminationReason` is the contract's TerminationReason (or
 * null); `code` is that reason too, or SANDBOX_TERMINATED when the sandbox ended without one.
 */
export class SandboxTerminatedError extends ClientError {
  readonly terminationReason: TerminationReason | null;
  constructor(message: string, terminationReason: TerminationReason | null) {
    super(message, terminationReason ?? "SANDBOX_TERMINATED");
    this.terminationReason = terminationReason;
  }
}

const byStatus: Record<number, typeof SvcError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  429: RateLimitError,
  501: NotImplementedError,
};

/** The typed error of a response: the class follows the catalog status of the code, else the HTTP status. */
export function errorFromResponse(status: number, body: unknown): SvcError {
  const record = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  // The documents API carries the platform SDK's code in `code` and the catalog's in `details.code`.
  const details = (typeof record.details === "object" && record.details !== null ? record.details : {}) as {
    code?: unknown;
  };
  const code =
    typeof details.code === "string"
      ? details.code
      : typeof record.code === "string"
        ? record.code
        : `HTTP_${status}`;
  const message =
    (typeof record.error === "string" && record.error) ||
    (typeof record.message === "string" && record.message) ||
    (typeof body === "string" && body) ||
    `HTTP ${status}`;
  const catalogStatus = isErrorCode(code) ? errorCatalog[code as ErrorCode].status : status;
  const Class = byStatus[catalogStatus] ?? (catalogStatus >= 500 ? ServerError : SvcError);
  return new Class(message, code, status);
}
