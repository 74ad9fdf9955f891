import type { TSchema } from "typebox";
import { ErrorBodySchema, jsonSchema } from "./common.ts";
import { errorCatalog, isErrorCode } from "./errors.ts";
import { NAMESPACE_PREFIX, namespaceParamSchema, type RouteDef } from "./route.ts";

export const CONTRACT_VERSION = "0.1.0";

type JsonObject = Record<string, unknown>;

const plain = (schema: TSchema): JsonObject => jsonSchema(schema);

/** Path parameters of an object schema as OpenAPI parameters. */
function parameters(schema: TSchema | undefined, where: "path" | "query"): JsonObject[] {
  if (!schema) return [];
  const json = plain(schema) as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    ...(typeof prop.description === "string" ? { description: prop.description } : {}),
    schema: prop,
  }));
}

function requestBody(route: RouteDef): JsonObject | undefined {
  switch (route.bodyKind ?? (route.body ? "json" : undefined)) {
    case "json":
      return {
        required: true,
        content: { "application/json": { schema: route.body ? plain(route.body) : {} } },
      };
    case "raw":
      return {
        required: true,
        content: { "application/octet-stream": { schema: { type: "string", contentEncoding: "binary" } } },
      };
    case "multipart":
      return {
        required: true,
        content: {
          "multipart/form-data": {
            schema: route.body
              ? plain(route.body)
              : { type: "object", properties: { file: { type: "string", contentEncoding: "binary" } } },
          },
        },
      };
    default:
      return undefined;
  }
}

function successResponse(route: RouteDef): JsonObject {
  switch (route.responseKind) {
    case "json":
      return {
        description: "OK",
        content: { "application/json": { schema: route.response ? plain(route.response) : {} } },
      };
    case "sse":
      return {
        description: "A stream of Server-Sent Events",
        content: {
          "text/event-stream": {
            schema: { type: "string" },
            ...(route.response ? { itemSchema: plain(route.response) } : {}),
          },
        },
      };
    case "bytes":
      return {
        description: "Raw bytes",
        content: { "application/octet-stream": { schema: { type: "string", contentEncoding: "binary" } } },
      };
    case "websocket":
      return { description: "Switching Protocols: a WebSocket follows" };
    case "empty":
      return { description: "No content" };
  }
}

function errorResponses(route: RouteDef): JsonObject {
  const codes = new Set<string>(["INTERNAL_ERROR", ...(route.errors ?? [])]);
  if (route.auth !== "none") codes.add("UNAUTHORIZED");
  if (route.params || route.query || route.body) codes.add("INVALID_REQUEST");
  if (route.query) codes.add("INVALID_QUERY_PARAMS");
  if ((route.bodyKind ?? (route.body ? "json" : undefined)) === "json") codes.add("INVALID_JSON");
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    if (!isErrorCode(code))
      throw new Error(`route ${route.method} ${route.path} names unknown error ${code}`);
    const { status } = errorCatalog[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: JsonObject = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: list.join(", "),
      content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
    };
  }
  return out;
}

const securityOf: Record<RouteDef["auth"], JsonObject[]> = {
  apiKey: [{ apiKey: [] }],
  admin: [{ adminToken: [] }],
  none: [],
  forwarded: [{ apiKey: [] }],
};

/**
 * The OpenAPI 3.1 document of a route table. Runtime routes (served by the in-sandbox daemon) are listed
 * under the sandbox proxy's server; control routes under the control API.
 */
export function buildOpenApi(
  routes: Record<string, RouteDef>,
  options: { serverUrl?: string } = {},
): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const [operationId, route] of Object.entries(routes)) {
    const operation: JsonObject = {
      operationId,
      summary: route.summary,
      tags: [route.tag],
      security: securityOf[route.auth],
      parameters: [...parameters(route.params, "path"), ...parameters(route.query, "query")],
      responses: { [String(route.status)]: successResponse(route), ...errorResponses(route) },
    };
    const body = requestBody(route);
    if (body) operation.requestBody = body;
    if (route.surface === "runtime") {
      operation.servers = [
        { url: "https://{sandbox}.sandbox.localhost:9443", variables: { sandbox: { default: "id" } } },
      ];
    }
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operation;
    if (route.namespaced) {
      const path = NAMESPACE_PREFIX + route.path;
      paths[path] ??= {};
      paths[path][route.method.toLowerCase()] = {
        ...operation,
        operationId: `${operationId}InNamespace`,
        parameters: [
          { name: "namespace", in: "path", required: true, schema: { ...namespaceParamSchema } },
          ...(operation.parameters as JsonObject[]),
        ],
      };
    }
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "svc: sandboxes and document parsing",
      version: CONTRACT_VERSION,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: options.serverUrl ?? "http://localhost:8900" }],
    paths,
    components: {
      schemas: { ErrorBody: plain(ErrorBodySchema) },
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "A project API key, svc_apiKey_..." },
        adminToken: {
          type: "http",
          scheme: "bearer",
          description: "The server's admin token, svc_admin_...",
        },
      },
    },
  };
}
