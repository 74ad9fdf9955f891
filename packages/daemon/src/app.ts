import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import { pipeline, type Readable } from "node:stream";
import { type ErrorCode, errorBody, errorCatalog } from "@svc/contract/errors";
import { FORWARDED_AUTH_HEADER, verifyForwardedAuth } from "@svc/contract/forwarded-auth";
import type { RouteBody, RouteDef, RouteParams, RouteQuery, RouteResponse } from "@svc/contract/route";
import { errorResponse, routeSchema } from "@svc/contract/route-http";
import { isJsonContentType, readJsonBody } from "./json-body.ts";
import { RouteTable } from "./route-table.ts";
import { routeValidator, type Validator, validatorKey } from "./route-validators.ts";

// Not `import … from "node:http"`: the ESM facade of node:http reads every export, and its lazy getters load
// undici (~15 ms of start-up); the CommonJS object does not.
const { createServer } = process.getBuiltinModule("node:http");

/**
 * # app
 *
 * The daemon's HTTP layer: Node's HTTP server, the contract's route table, and per route forwarded auth, JSON
 * body parsing, validation from the route's schemas (route-validators.ts) and catalog
 * errors for everything (never a crash). No framework: a daemon idles in every sandbox, and a framework's
 * modules were a sixth of its memory and a quarter of its start-up; its request handling is these few rules:
 * - routes match by method and exact path (a trailing slash ignored, HEAD served by GET); anything else is 404
 *   ROUTE_NOT_FOUND;
 * - forwarded auth is checked before the body is read (401 UNAUTHORIZED);
 * - an `application/json` body is read (at most `bodyLimitBytes`, else 413 PAYLOAD_TOO_LARGE) and parsed (400
 *   INVALID_JSON) unless the route takes raw bytes; a body of any other type is left unread (the route's schema,
 *   if it wants an object, then rejects it);
 * - path, body and query are validated in that order (route-validators.ts); a failure is 400 INVALID_REQUEST
 *   (query: INVALID_QUERY_PARAMS) naming the field;
 * - a handler's result is sent as JSON with the route's status (no body for `empty` routes); a handler that
 *   streams writes the reply itself.
 */

export interface DaemonAppOptions {
  /** Per-sandbox secret of the forwarded-auth HMAC; every route but health requires a valid signature. */
  authSecret: string;
  /** The sandbox id the proxy signs for (part of the signed string). */
  sandboxId: string;
  /** Largest JSON body (raw bodies such as file contents stream and are not limited by this). */
  bodyLimitBytes?: number;
  /** `silent` logs nothing; anything else logs requests that failed inside the daemon (500s). */
  logLevel?: string;
}

/** How long an idle keep-alive connection stays open (the proxy reuses its connections to the daemon). */
const KEEP_ALIVE_MS = 72_000;
const JSON_TYPE = "application/json; charset=utf-8";

export interface DaemonRequest {
  raw: IncomingMessage;
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** The response of one request: status and headers set, then one `send`; or hijacked, written on `raw`. */
export class DaemonReply {
  readonly raw: ServerResponse;
  statusCode = 200;
  #hijacked = false;

  constructor(raw: ServerResponse) {
    this.raw = raw;
  }

  /** Whether the response is under way or done (or the handler took it over). */
  get sent(): boolean {
    return this.#hijacked || this.raw.headersSent || this.raw.writableEnded;
  }

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  type(contentType: string): this {
    this.raw.setHeader("content-type", contentType);
    return this;
  }

  header(name: string, value: string | number): this {
    this.raw.setHeader(name, value);
    return this;
  }

  /** The handler writes the response itself on `raw`. */
  hijack(): this {
    this.#hijacked = true;
    return this;
  }

  /** Sends the status, headers and a body: text, bytes, a stream (piped; an error cuts the response) or none. */
  send(payload?: string | Buffer | Readable): this {
    const raw = this.raw;
    raw.statusCode = this.statusCode;
    if (payload === undefined) {
      raw.end();
    } else if (typeof payload === "string" || Buffer.isBuffer(payload)) {
      raw.setHeader("content-length", Buffer.byteLength(payload));
      raw.end(payload);
    } else {
      pipeline(payload, raw, (error) => {
        if (error) raw.destroy();
      });
    }
    return this;
  }

  /** Sends a value as JSON. */
  json(value: unknown): this {
    if (!this.raw.hasHeader("content-type")) this.raw.setHeader("content-type", JSON_TYPE);
    return this.send(JSON.stringify(value));
  }
}

export type RouteHandler = (request: DaemonRequest, reply: DaemonReply) => unknown;

export interface RouteOptions {
  /** The body is the route's to read (file contents, stdin): never parsed, whatever its type. */
  rawBody?: boolean;
  /** Served without forwarded auth (health), or the route checks it itself. */
  open?: boolean;
}

interface RouteEntry extends RouteOptions {
  handler: RouteHandler;
}

/**
 * Whether a request's body is parsed as JSON: a JSON content type on a method with a body (for DELETE and
 * OPTIONS, only when a length or chunked body is declared). A JSON type with no body is 400 INVALID_JSON.
 */
function parsesJson(method: string, req: IncomingMessage): boolean {
  if (!isJsonContentType(req.headers["content-type"]) || method === "GET" || method === "HEAD") return false;
  if (method === "DELETE" || method === "OPTIONS") {
    return req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] !== undefined;
  }
  return true;
}

/** The daemon's HTTP server and its routes; `serve` adds a contract route. */
export class DaemonApp {
  readonly server: Server;
  readonly daemonOptions: DaemonAppOptions;
  readonly #routes = new RouteTable<RouteEntry>();
  readonly #log: (message: string) => void;

  constructor(options: DaemonAppOptions) {
    this.daemonOptions = options;
    const silent = !options.logLevel || options.logLevel === "silent";
    this.#log = silent ? () => {} : (message) => process.stderr.write(`svc-daemon: ${message}\n`);
    this.server = createServer((req, res) => void this.#handle(req, res));
    this.server.keepAliveTimeout = KEEP_ALIVE_MS;
    // Uploads (files, stdin) may take as long as they take.
    this.server.requestTimeout = 0;
  }

  /** Adds a route; `path` in the contract's form (`/api/v1/processes/{pid}`). */
  route(method: string, path: string, handler: RouteHandler, options: RouteOptions = {}): void {
    this.#routes.add(method, path, { handler, ...options });
  }

  listen(options: { host: string; port: number }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(options.port, options.host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
  }

  /** Every route is added when the app is built; kept for callers that wait for it. */
  ready(): Promise<void> {
    return Promise.resolve();
  }

  /** Stops listening and closes every connection, idle or not. */
  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = new DaemonReply(res);
    try {
      const url = req.url ?? "/";
      const method = req.method ?? "GET";
      const queryAt = url.indexOf("?");
      const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
      const found = this.#routes.find(method, pathname);
      if (!found) {
        sendError(reply, "ROUTE_NOT_FOUND", `no route ${method} ${pathname}`);
        return;
      }
      const request: DaemonRequest = {
        raw: req,
        method,
        url,
        headers: req.headers,
        params: found.params,
        query: parseQuery(queryAt === -1 ? "" : url.slice(queryAt + 1)),
        body: undefined,
      };
      const route = found.value;
      if (!route.open && !isForwarded(request, this.daemonOptions)) {
        sendError(reply, "UNAUTHORIZED", "The request does not carry the sandbox proxy's forwarded auth");
        return;
      }
      if (!route.rawBody && parsesJson(method, req)) {
        request.body = await readJsonBody(req, this.daemonOptions.bodyLimitBytes ?? 16 * 1024 * 1024);
      }
      await found.value.handler(request, reply);
    } catch (error) {
      this.#fail(error, reply);
    }
  }

  #fail(error: unknown, reply: DaemonReply): void {
    const { status, body, internal } = errorResponse(error);
    if (internal) this.#log(`request failed: ${(error as Error)?.stack ?? String(error)}`);
    if (reply.sent) {
      // Part of an answer is out: cut it, so the client sees a truncated response, not a wrong complete one.
      if (!reply.raw.writableEnded) reply.raw.destroy();
      return;
    }
    reply.code(status).type(JSON_TYPE).json(body);
  }
}

/** The query string as an object: a repeated name gives an array; `+` and percent escapes decoded. */
function parseQuery(text: string): Record<string, unknown> {
  const query: Record<string, unknown> = Object.create(null);
  if (text === "") return query;
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = query[name];
    if (previous === undefined) query[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else query[name] = [previous, value];
  }
  return query;
}

export function createDaemonApp(options: DaemonAppOptions): DaemonApp {
  return new DaemonApp(options);
}

export function sendError(reply: DaemonReply, code: ErrorCode, message?: string): DaemonReply {
  return reply.code(errorCatalog[code].status).type(JSON_TYPE).json(errorBody(code, message));
}

export interface DaemonHandlerInput<R extends RouteDef> {
  params: RouteParams<R>;
  query: RouteQuery<R>;
  body: RouteBody<R>;
  request: DaemonRequest;
  reply: DaemonReply;
}

export type DaemonHandler<R extends RouteDef> = (
  input: DaemonHandlerInput<R>,
) => Promise<RouteResponse<R> | DaemonReply | undefined> | RouteResponse<R> | DaemonReply | undefined;

/** Whether a request carries a valid forwarded-auth signature for this sandbox. */
export function isForwarded(
  request: Pick<DaemonRequest, "headers" | "method" | "url">,
  options: DaemonAppOptions,
) {
  const header = request.headers[FORWARDED_AUTH_HEADER];
  return verifyForwardedAuth({
    secret: options.authSecret,
    sandboxId: options.sandboxId,
    method: request.method,
    pathAndQuery: request.url,
    header: typeof header === "string" ? header : undefined,
  });
}

/** A validator taken (compiled, outside the bundle) on its first use: most routes of a sandbox are never called. */
function lazyValidator(key: string, schema: unknown, httpPart: string): (data: unknown) => void {
  let compiled: Validator | undefined;
  return (data) => {
    compiled ??= routeValidator(key, schema, httpPart);
    if (compiled(data)) return;
    const validation = compiled.errors ?? [];
    throw Object.assign(new Error(`${httpPart} is not valid`), {
      statusCode: 400,
      validation,
      validationContext: httpPart,
    });
  };
}

/**
 * Serves one runtime route of the contract: forwarded auth (unless the route is open) and its JSON body (both
 * by the app), validation from its schemas, then the handler. A handler that streams sends on `reply` itself and returns it.
 */
export function serve<R extends RouteDef>(
  app: DaemonApp,
  route: R,
  handler: DaemonHandler<R>,
  options: RouteOptions = {},
): void {
  const schema = routeSchema(route);
  const checks: [keyof DaemonRequest & ("params" | "body" | "query"), (data: unknown) => void][] = [];
  const key = (part: string) => validatorKey(route.method, route.path, part);
  if (schema.params) checks.push(["params", lazyValidator(key("params"), schema.params, "params")]);
  if (schema.body) checks.push(["body", lazyValidator(key("body"), schema.body, "body")]);
  if (schema.querystring) {
    checks.push(["query", lazyValidator(key("querystring"), schema.querystring, "querystring")]);
  }
  const rawBody = route.bodyKind === "raw";
  app.route(
    route.method,
    route.path,
    async (request, reply) => {
      for (const [part, check] of checks) check(request[part]);
      const result = await handler({
        params: request.params as never,
        query: request.query as never,
        body: request.body as never,
        request,
        reply,
      });
      if (result === reply || reply.sent) return;
      reply.code(route.status);
      if (route.responseKind === "empty" || result === undefined) reply.send();
      else reply.json(result);
    },
    { rawBody, open: route.auth === "none", ...options },
  );
}
