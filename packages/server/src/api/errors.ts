import { type ErrorCode, errorBody, errorCatalog, errorResponse } from "@svc/contract";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  return reply.code(errorCatalog[code].status).type("application/json").send(errorBody(code, message));
}

/** Maps every error a request can end in to the catalog: validation, parsing, ServiceError, and the rest as 500. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, body, internal } = errorResponse(error);
    if (internal) request.log.error({ err: error }, "request failed");
    return reply.code(status).type("application/json").send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, "ROUTE_NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`),
  );
}
