import { type ErrorCode, errorBody, errorCatalog } from "@svc/contract/errors";
import { FORWARDED_AUTH_HEADER, verifyForwardedAuth } from "@svc/contract/forwarded-auth";
import { createValidatorCompiler } from "@svc/contract/request-validation";
import {
  colonPath,
  type RouteBody,
  type RouteDef,
  type RouteParams,
  type RouteQuery,
  type RouteResponse,
} from "@svc/contract/route";
import { errorResponse, routeSchema } from "@svc/contract/route-http";
import fastJsonStringify from "fast-json-stringify";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifySchema,
  type FastifySchemaValidationError,
} from "fastify";

export interface DaemonAppOptions {
  /** Per-sandbox secret of the forwarded-auth HMAC; every route but health requires a valid signature. */
  authSecret: string;
  /** The sandbox id the proxy signs for (part of the signed string). */
  sandboxId: string;
  /** Largest JSON body (raw bodies such as file contents stream and are not limited by this). */
  bodyLimitBytes?: number;
  logLevel?: string;
}

/** Without the meta-schema check: see ValidatorCompilerOptions (runtime.test.ts checks every runtime schema). */
const validatorCompiler = createValidatorCompiler({ validateSchemas: false });

type CompiledValidator = ((data: unknown, context?: unknown) => boolean) & {
  errors?: FastifySchemaValidationError[] | null;
};

/**
 * A route's schemas are compiled on its first request, not at start-up: Ajv validators and fast-json-stringify
 * serializers of every route were a third of the daemon's start (~100 ms), and a sandbox uses few routes.
 * `schemaEnv` tells Fastify to pass the parent data (what Ajv needs to apply defaults to a root value), as it
 * does for an Ajv function; `errors` is copied after each call, where Fastify reads it.
 */
function lazyValidatorCompiler(input: { schema: unknown; httpPart?: string }): CompiledValidator {
  let compiled: CompiledValidator | undefined;
  const validate: CompiledValidator & { schemaEnv?: unknown } = (data, context) => {
    compiled ??= validatorCompiler(input) as CompiledValidator;
    const result = compiled(data, context);
    validate.errors = compiled.errors;
    return result;
  };
  validate.schemaEnv = true;
  return validate;
}

function lazySerializerCompiler({ schema }: { schema: unknown }): (data: unknown) => string {
  let compiled: ((data: unknown) => string) | undefined;
  return (data) => {
    compiled ??= fastJsonStringify(schema as Parameters<typeof fastJsonStringify>[0]);
    return compiled(data);
  };
}

export function sendError(reply: FastifyReply, code: ErrorCode, message?: string): FastifyReply {
  return reply.code(errorCatalog[code].status).type("application/json").send(errorBody(code, message));
}

/**
 * The daemon's HTTP app: contract validation, catalog errors for everything (never a crash), and the
 * forwarded-auth check in front of every route but health. Route modules add their routes with `serve`.
 */
export function createDaemonApp(options: DaemonAppOptions): FastifyInstance {
  const app = Fastify({
    logger: !options.logLevel || options.logLevel === "silent" ? false : { level: options.logLevel },
    bodyLimit: options.bodyLimitBytes ?? 16 * 1024 * 1024,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
  });
  app.setValidatorCompiler(lazyValidatorCompiler);
  app.setSerializerCompiler(lazySerializerCompiler);
  app.removeContentTypeParser("text/plain");
  // Raw bodies (file contents, stdin) arrive as the request stream; the route reads it.
  app.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
  app.setErrorHandler((error, request, reply) => {
    const { status, body, internal } = errorResponse(error);
    if (internal) request.log.error({ err: error }, "request failed");
    return reply.code(status).type("application/json").send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, "ROUTE_NOT_FOUND", `no route ${request.method} ${request.url.split("?")[0]}`),
  );
  app.decorate("daemonOptions", options);
  return app;
}

declare module "fastify" {
  interface FastifyInstance {
    daemonOptions: DaemonAppOptions;
  }
}

export interface DaemonHandlerInput<R extends RouteDef> {
  params: RouteParams<R>;
  query: RouteQuery<R>;
  body: RouteBody<R>;
  request: FastifyRequest;
  reply: FastifyReply;
}

export type DaemonHandler<R extends RouteDef> = (
  input: DaemonHandlerInput<R>,
) => Promise<RouteResponse<R> | FastifyReply | undefined> | RouteResponse<R> | FastifyReply | undefined;

/** Whether a request carries a valid forwarded-auth signature for this sandbox. */
export function isForwarded(request: FastifyRequest, options: DaemonAppOptions): boolean {
  const header = request.headers[FORWARDED_AUTH_HEADER];
  return verifyForwardedAuth({
    secret: options.authSecret,
    sandboxId: options.sandboxId,
    method: request.method,
    pathAndQuery: request.url,
    header: typeof header === "string" ? header : undefined,
  });
}

/**
 * Serves one runtime route of the contract: forwarded auth (unless the route is open), validation from its
 * schemas, then the handler. A handler that streams sends on `reply` itself and returns it.
 */
export function serve<R extends RouteDef>(app: FastifyInstance, route: R, handler: DaemonHandler<R>): void {
  app.route({
    method: route.method,
    url: colonPath(route.path),
    schema: routeSchema(route) as FastifySchema,
    onRequest: async (request, reply) => {
      if (route.auth === "none") return;
      if (!isForwarded(request, app.daemonOptions)) {
        return sendError(
          reply,
          "UNAUTHORIZED",
          "The request does not carry the sandbox proxy's forwarded auth",
        );
      }
    },
    handler: async (request, reply) => {
      const result = await handler({
        params: request.params as never,
        query: request.query as never,
        body: request.body as never,
        request,
        reply,
      });
      if (result === reply) return reply;
      reply.code(route.status);
      if (route.responseKind === "empty" || result === undefined) return reply.send();
      return result;
    },
  });
}
