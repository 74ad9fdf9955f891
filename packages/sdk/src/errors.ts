import { type ErrorCode, errorCatalog, isErrorCode } from "@svc/contract";

/** Every error the service answers with, carrying its catalog code and HTTP status. */
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
/** The server could not be reached at all. */
export class ConnectionError extends SvcError {}

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
