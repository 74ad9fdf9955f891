import type { Static, TSchema } from "typebox";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Who may call a route: a project API key, the server's admin token, anyone, or the sandbox proxy. */
export type RouteAuth = "apiKey" | "admin" | "none" | "forwarded";

/** Which surface serves a route: the control server or the in-sandbox daemon (reached through the proxy). */
export type RouteSurface = "control" | "runtime";

/**
 * How the request body travels: JSON validated by `body`, raw bytes (file contents, stdin), or multipart.
 * How the success response travels: JSON validated by its schema, an SSE stream, raw bytes, a WebSocket upgrade.
 */
export type BodyKind = "json" | "raw" | "multipart";
export type ResponseKind = "json" | "sse" | "bytes" | "websocket" | "empty";

/**
 * One route of the contract, declared once. Servers register handlers from it (validation comes from the
 * schemas), the SDK calls it by name, and the OpenAPI document is built from it.
 */
export interface RouteDef {
  method: HttpMethod;
  /** OpenAPI form: `/sandboxes/{sandbox_id}`. */
  path: string;
  summary: string;
  tag: string;
  surface: RouteSurface;
  auth: RouteAuth;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  bodyKind?: BodyKind;
  /** Success status of the response. */
  status: number;
  response?: TSchema;
  responseKind: ResponseKind;
  /** Error codes this route documents beyond the ones every route shares. */
  errors?: readonly string[];
  /**
   * Also served under `/v1/namespaces/{namespace}` (NAMESPACE_PREFIX), the form the public platform's SDKs use;
   * the namespace must name the key's project.
   */
  namespaced?: boolean;
  /** Errors answer `text/plain` (the message alone) instead of the JSON error body, as the spec says of attach. */
  textErrors?: boolean;
}

/** The prefix of the namespaced form of a route: `/v1/namespaces/{namespace}/sandboxes/...`. */
export const NAMESPACE_PREFIX = "/v1/namespaces/{namespace}";

/** The namespace path parameter of NAMESPACE_PREFIX, as JSON Schema: a project's name or id. */
export const namespaceParamSchema = {
  type: "string",
  minLength: 1,
  maxLength: 100,
  pattern: "^[A-Za-z0-9][A-Za-z0-9_-]*$",
} as const;

/** Keeps the literal types of a route table while checking every entry is a RouteDef. */
export function defineRoutes<const T extends Record<string, RouteDef>>(routes: T): T {
  return routes;
}

type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

export type RouteParams<R extends RouteDef> = StaticOr<R["params"], Record<string, never>>;
export type RouteQuery<R extends RouteDef> = StaticOr<R["query"], Record<string, never>>;
export type RouteBody<R extends RouteDef> = StaticOr<R["body"], undefined>;
export type RouteResponse<R extends RouteDef> = StaticOr<R["response"], undefined>;

/** `/sandboxes/{sandbox_id}` → `/sandboxes/:sandbox_id` for routers that use the colon form. */
export function colonPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ":$1");
}

/** Fills `{name}` placeholders with URL-encoded values. */
export function fillPath(path: string, params: Record<string, string | number>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
    return encodeURIComponent(String(value));
  });
}
