import {
  documentErrorBody,
  type ErrorBody,
  type ErrorCode,
  errorBody,
  errorCatalog,
  errorResponse,
  isDocumentsPath,
} from "@svc/contract";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Whether the request's route answers errors as text/plain (RouteDef.textErrors). */
function textErrors(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { textErrors?: boolean } | undefined)?.textErrors === true;
}

/** The JSON error body of a request: the documents API's carries the Python SDK's code (document-errors.ts). */
function bodyFor(request: FastifyRequest, body: ErrorBody, status: number): ErrorBody {
  return isDocumentsPath(request.url) ? documentErrorBody(body, status) : body;
}

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  const body = errorBody(code, message);
  const status = errorCatalog[code].status;
  reply.code(status);
  if (textErrors(reply.request)) return reply.type("text/plain; charset=utf-8").send(body.message);
  return reply.type("application/json").send(bodyFor(reply.request, body, status));
}

/** Maps every error a request can end in to the catalog: validation, parsing, ServiceError, and the rest as 500. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, internal } = errorResponse(error);
    if (internal) request.log.error({ err: error }, "request failed");
    reply.code(status);
    if (textErrors(request)) return reply.type("text/plain; charset=utf-8").send(body.message);
    return reply.type("application/json").send(bodyFor(request, body, status));
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, "ROUTE_NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`),
  );
}
