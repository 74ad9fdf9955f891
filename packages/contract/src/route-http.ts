import { jsonSchema } from "./common.ts";
import { type ErrorBody, type ErrorCode, errorBody, errorCatalog, ServiceError } from "./errors.ts";
import { classifyRequestError, type RequestErrorLike } from "./request-errors.ts";
import type { RouteDef } from "./route.ts";

/**
 * What every HTTP server of the project (control server, daemon) derives from a route and from an error, in
 * the shapes Fastify takes, so both answer the same way.
 */

/** The validation and serialization schemas of a route: path, query and JSON body in, the success body out. */
export function routeSchema(route: RouteDef): {
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  response?: Record<number, unknown>;
} {
  const schema: ReturnType<typeof routeSchema> = {};
  if (route.params) schema.params = jsonSchema(route.params);
  if (route.query) schema.querystring = jsonSchema(route.query);
  if (route.body && (route.bodyKind ?? "json") === "json") schema.body = jsonSchema(route.body);
  if (route.responseKind === "json" && route.response) {
    schema.response = { [route.status]: jsonSchema(route.response) };
  }
  return schema;
}

/**
 * The status and body of any error a request ended in: a ServiceError keeps its code; validation, parsing and
 * limit errors get theirs; anything else is a 500 INTERNAL_ERROR, flagged `internal` so the server logs it.
 */
export function errorResponse(error: unknown): { status: number; body: ErrorBody; internal: boolean } {
  const known: { code: ErrorCode; message: string } | null =
    error instanceof ServiceError
      ? { code: error.code, message: error.message }
      : classifyRequestError(error as RequestErrorLike);
  const code = known?.code ?? "INTERNAL_ERROR";
  return { status: errorCatalog[code].status, body: errorBody(code, known?.message), internal: !known };
}
