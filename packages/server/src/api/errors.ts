import { type ErrorCode, errorBody, errorCatalog, errorResponse } from "@svc/contract";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Whether the request's route answers errors as text/plain (RouteDef.textErrors). */
function textErrors(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { textErrors?: boolean } | undefined)?.textErrors === true;
}

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  const body = errorBody(code, message);
  reply.code(errorCatalog[code].status);
  if (textErrors(reply.request)) return reply.type("text/plain; charset=utf-8").send(body.message);
  return reply.type("application/json").send(body);
}

/** Maps every error a request can end in to the catalog: validation, parsing, ServiceError, and the rest as 500. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, internal } = errorResponse(error);
    if (internal) request.log.error({ err: error }, "request failed");
    reply.code(status);
    if (textErrors(request)) return reply.type("text/plain; charset=utf-8").send(body.message);
    return reply.type("application/json").send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, "ROUTE_NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`),
  );
}
