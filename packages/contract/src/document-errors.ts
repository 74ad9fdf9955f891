import type { ErrorBody, ErrorCode } from "./errors.ts";

/**
 * The error codes the public platform's Python SDK reads in a documents API error's `code`: it parses `code` as
 * one of these and reports any other as INTERNAL_ERROR, losing the message. The documents API answers with one
 * of them in `code` and keeps the catalog code in `details.code`.
 */
export const DOCUMENT_ERROR_CODES = [
  "QUOTA_EXCEEDED",
  "INVALID_JSON_SCHEMA",
  "INVALID_CONFIGURATION",
  "INVALID_PAGE_CLASSIFICATION",
  "ENTITY_NOT_FOUND",
  "ENTITY_ALREADY_EXISTS",
  "INVALID_FILE",
  "INVALID_PAGE_RANGE",
  "INVALID_MIME_TYPE",
  "INVALID_DATASET_NAME",
  "INTERNAL_ERROR",
  "INVALID_MULTIPART",
  "MULTIPART_STREAM_END",
  "INVALID_QUERY_PARAMS",
] as const;
export type DocumentErrorCode = (typeof DOCUMENT_ERROR_CODES)[number];

const documentCodes: ReadonlySet<string> = new Set(DOCUMENT_ERROR_CODES);

/** Catalog codes the documents API answers with that are not the SDK's, and the SDK code each is reported as. */
const documentCodeOf: Partial<Record<ErrorCode, DocumentErrorCode>> = {
  INVALID_JSON: "INVALID_CONFIGURATION",
  INVALID_REQUEST: "INVALID_CONFIGURATION",
  UNSUPPORTED_MEDIA_TYPE: "INVALID_CONFIGURATION",
  PAYLOAD_TOO_LARGE: "INVALID_CONFIGURATION",
  NOT_IMPLEMENTED: "INVALID_CONFIGURATION",
  INVALID_CURSOR: "INVALID_QUERY_PARAMS",
  FILE_TOO_LARGE: "INVALID_FILE",
  ROUTE_NOT_FOUND: "ENTITY_NOT_FOUND",
  METHOD_NOT_ALLOWED: "ENTITY_NOT_FOUND",
};

/** The SDK's code for a catalog code: itself when the SDK knows it, else the table above, else by status class. */
export function documentErrorCode(code: ErrorCode, status: number): DocumentErrorCode {
  if (documentCodes.has(code)) return code as DocumentErrorCode;
  const mapped = documentCodeOf[code];
  if (mapped) return mapped;
  if (status >= 500) return "INTERNAL_ERROR";
  if (status === 404) return "ENTITY_NOT_FOUND";
  if (status === 409) return "ENTITY_ALREADY_EXISTS";
  return "INVALID_CONFIGURATION";
}

/** A documents API error body: the SDK's code in `code`, and the catalog code in `details.code` when it differs. */
export interface DocumentErrorBody extends ErrorBody {
  details?: { code: ErrorCode };
}

export function documentErrorBody(body: ErrorBody, status: number): DocumentErrorBody {
  const code = body.code as ErrorCode;
  const sdkCode = documentErrorCode(code, status);
  return sdkCode === code ? body : { ...body, code: sdkCode, details: { code } };
}

/** Whether a request path is the documents API's, whose errors speak the SDK's codes. */
export function isDocumentsPath(url: string): boolean {
  return url === "/documents" || url.startsWith("/documents/") || url.startsWith("/documents?");
}
