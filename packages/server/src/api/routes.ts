import {
  colonPath,
  NAMESPACE_PREFIX,
  namespaceParamSchema,
  type RouteBody,
  type RouteDef,
  type RouteParams,
  type RouteQuery,
  type RouteResponse,
  routeSchema,
  ServiceError,
} from "@svc/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from "fastify";
import { bearerToken, matchesHash } from "../auth/bearer.ts";
import type { AuthContext } from "../auth/context.ts";
import { sendError } from "./errors.ts";

export interface HandlerInput<R extends RouteDef> {
  params: RouteParams<R>;
  query: RouteQuery<R>;
  body: RouteBody<R>;
  /** The calling key; set on apiKey routes. */
  auth: AuthContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A handler returns the response body of its route; streaming handlers send on `reply` and return it. */
export type RouteHandler<R extends RouteDef> = (
  input: HandlerInput<R>,
) => Promise<RouteResponse<R> | FastifyReply> | RouteResponse<R> | FastifyReply;

export type Handlers<T extends Record<string, RouteDef>> = { [K in keyof T]?: RouteHandler<T[K]> };

export interface Authenticator {
  /** The key's context, or null when the key is unknown or deleted. */
  apiKey(key: string): Promise<AuthContext | null>;
  /** SHA-256 hex of the admin token, or null when admin routes are closed on this host. */
  adminTokenHash(): string | null;
  /** Whether a namespace of the namespaced route form names the key's project (its name or id). */
  ownsNamespace(auth: AuthContext, namespace: string): Promise<boolean>;
}

type JsonSchemaObject = { type?: string; properties?: Record<string, unknown>; required?: string[] };

/** A route's path-parameter schema with the `namespace` of NAMESPACE_PREFIX added. */
function withNamespaceParam(params: unknown): JsonSchemaObject {
  const base = (params ?? { type: "object", properties: {} }) as JsonSchemaObject;
  return {
    ...base,
    properties: { namespace: namespaceParamSchema, ...base.properties },
    required: ["namespace", ...(base.required ?? [])],
  };
}

/** A JSON body whose every field is optional: an empty request (no body, no Content-Type) means `{}`. */
function emptyBodyMeansObject(route: RouteDef): boolean {
  if (!route.body || (route.bodyKind ?? "json") !== "json") return false;
  const schema = route.body as JsonSchemaObject;
  return schema.type === "object" && (schema.required ?? []).length === 0;
}

/** The media type every raw-body route reads its body as (the parser that leaves the stream unread). */
export const RAW_BODY_TYPE = "application/octet-stream";

declare module "fastify" {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/**
 * Registers every route of a table: authentication first (a 401 comes before any look at the body), then
 * validation of path, query and body from the contract's schemas, then the handler. A route of the contract
 * with no handler yet answers 501 NOT_IMPLEMENTED after authentication and validation. A `namespaced` route is
 * registered a second time under NAMESPACE_PREFIX, where a namespace other than the key's project is a 404.
 */
export function registerRoutes<T extends Record<string, RouteDef>>(
  app: FastifyInstance,
  routes: T,
  handlers: Handlers<T>,
  authenticator: Authenticator,
): void {
  for (const [name, route] of Object.entries(routes)) {
    const handler = handlers[name as keyof T] as RouteHandler<RouteDef> | undefined;
    registerRoute(app, route, handler, authenticator, false);
    if (route.namespaced) registerRoute(app, route, handler, authenticator, true);
  }
}

function registerRoute(
  app: FastifyInstance,
  route: RouteDef,
  handler: RouteHandler<RouteDef> | undefined,
  authenticator: Authenticator,
  namespaced: boolean,
): void {
  const schema = routeSchema(route);
  if (namespaced) schema.params = withNamespaceParam(schema.params);
  const emptyBody = emptyBodyMeansObject(route);
  app.route({
    method: route.method,
    url: colonPath(namespaced ? NAMESPACE_PREFIX + route.path : route.path),
    schema: schema as FastifySchema,
    config: { textErrors: route.textErrors === true },
    onRequest: async (request, reply) => {
      if (route.auth === "none") return;
      const token = bearerToken(request.headers.authorization);
      if (route.auth === "admin") {
        const hash = authenticator.adminTokenHash();
        if (!token || !hash || !matchesHash(token, hash)) {
          return sendError(reply, "UNAUTHORIZED", "The admin token is invalid or not sent as a Bearer token");
        }
        return;
      }
      const auth = token ? await authenticator.apiKey(token) : null;
      if (!auth) return sendError(reply, "UNAUTHORIZED");
      request.auth = auth;
    },
    // A raw-body route reads the bytes as they are, whatever they are labelled: `curl --data-binary @f` sends
    // form-urlencoded and `curl -T f` no Content-Type at all; both read as the octet stream they are.
    ...(route.bodyKind === "raw"
      ? {
          preParsing: async (request: FastifyRequest) => {
            request.headers["content-type"] = RAW_BODY_TYPE;
          },
        }
      : {}),
    preValidation: async (request) => {
      if (emptyBody && (request.body === undefined || request.body === null)) request.body = {};
    },
    handler: async (request, reply) => {
      const params = { ...(request.params as Record<string, string>) };
      if (namespaced) {
        const namespace = params.namespace;
        delete params.namespace;
        if (!(await authenticator.ownsNamespace(request.auth as AuthContext, namespace))) {
          throw new ServiceError("PROJECT_NOT_FOUND", `no namespace ${namespace} for this key`);
        }
      }
      if (!handler) {
        throw new ServiceError("NOT_IMPLEMENTED", `${route.method} ${route.path} is not served yet`);
      }
      const result = await handler({
        params: params as never,
        query: request.query as never,
        body: request.body as never,
        auth: request.auth as AuthContext,
        request,
        reply,
      });
      if (result === reply) return reply;
      reply.code(route.status);
      if (route.responseKind === "empty") return reply.send();
      return result;
    },
  });
}
