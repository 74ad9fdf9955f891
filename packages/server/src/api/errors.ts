import { type ErrorCode, errorBody, errorCatalog, ServiceError } from "@svc/contract";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { validationMessage } from "./validation.ts";

/** Fastify's own request errors, in catalog terms. */
const fastifyCodes: Record<string, ErrorCode> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: "INVALID_JSON",
  FST_ERR_CTP_INVALID_JSON_BODY: "INVALID_JSON",
  FST_ERR_CTP_BODY_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "INVALID_REQUEST",
  FST_ERR_CTP_INVALID_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  FST_ERR_BAD_URL: "INVALID_REQUEST",
  FST_ERR_ASYNC_CONSTRAINT: "INVALID_REQUEST",
};

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  return reply.code(errorCatalog[code].status).type("application/json").send(errorBody(code, message));
}

/** Maps every error a request can end in to the catalog: validation, parsing, ServiceError, and the rest as 500. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ServiceError) return sendError(reply, error.code, error.message);
    if (error.validation) {
      const part = error.validationContext ?? "body";
      const code: ErrorCode = part === "querystring" ? "INVALID_QUERY_PARAMS" : "INVALID_REQUEST";
      return sendError(reply, code, validationMessage(part, error.validation as never));
    }
    const mapped = error.code ? fastifyCodes[error.code] : undefined;
    if (mapped) return sendError(reply, mapped, error.message);
    if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
      return sendError(reply, "INVALID_JSON", `body is not valid JSON: ${error.message}`);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return sendError(reply, "INVALID_REQUEST", error.message);
    }
    request.log.error({ err: error }, "request failed");
    return sendError(reply, "INTERNAL_ERROR");
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, "ROUTE_NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`),
  );
}
