import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import net from "node:net";
import type { Duplex } from "node:stream";
import {
  type ErrorCode,
  errorBody,
  errorCatalog,
  FORWARDED_AUTH_HEADER,
  FORWARDED_PROJECT_HEADER,
  MANAGEMENT_PORT,
  signForwardedAuth,
} from "@svc/contract";
import { readChunks } from "@svc/contract/socket-reads";
import { bearerToken } from "../auth/bearer.ts";
import type { AuthContext } from "../auth/context.ts";
import type { SandboxDialer } from "../hosts/relay.ts";
import type { Logger } from "../log.ts";
import { connectionThrough } from "../sandboxes/daemon-link.ts";
import type { SandboxRepository, SandboxRow } from "../sandboxes/repository.ts";
import { corsHeaders, isPreflight, preflightHeaders, subprotocolBearer } from "./browser-access.ts";
import { type ProxyTarget, proxyTarget, SANDBOX_ID_HEADERS } from "./target.ts";

export interface ProxyOptions {
  domain: string;
  repo: SandboxRepository;
  authenticate: (key: string) => Promise<AuthContext | null>;
  secretOf: (sandboxId: string) => string;
  /** How long the upstream may stay silent before the request ends 504 READ_TIMEOUT. */
  readTimeoutMs?: number;
  /** PEM certificate and key: the proxy serves HTTPS (and wss) instead of plain HTTP. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  log?: Logger;
  /** Several hosts: reaches sandboxes that run on another host's executor, through its relay. */
  dialer?: SandboxDialer;
}

/** Hop-by-hop headers, never forwarded (RFC 9110 §7.6.1), plus our own that a client must not set. */
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "proxy-authorization",
  FORWARDED_AUTH_HEADER,
  FORWARDED_PROJECT_HEADER,
  ...SANDBOX_ID_HEADERS,
]);

interface Resolved {
  row: SandboxRow;
  target: ProxyTarget;
  /** Whether the client authenticated with an API key (then the key is not passed into the sandbox). */
  keyed: boolean;
  upstream: { host: string; port: number };
  /** The WebSocket subprotocols to forward when the key came as one: the offered list less that entry. */
  subprotocols?: string | undefined;
}

/**
 * Relays the bytes of an upgraded connection both ways, with backpressure, each side's FIN ending the other;
 * returns the two sockets to use from now on (see readChunks).
 */
function relay(client: Duplex, upstream: Duplex): { client: Duplex; upstream: Duplex } {
  const sides = {} as { client: Duplex; upstream: Duplex };
  sides.client = readChunks(client, (chunk, hold) => sides.upstream.write(chunk, hold()));
  sides.upstream = readChunks(upstream, (chunk, hold) => sides.client.write(chunk, hold()));
  sides.client.on("drain", () => sides.upstream.resume());
  sides.upstream.on("drain", () => sides.client.resume());
  sides.client.on("end", () => sides.upstream.end());
  sides.upstream.on("end", () => sides.client.end());
  return sides;
}

class ProxyError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message?: string) {
    super(message ?? errorCatalog[code].message);
    this.code = code;
  }
}

/**
 * The sandbox proxy: `<id-or-name>.<domain>` and the path form `/sandboxes/<id-or-name>/...` reach the daemon
 * on 9501, `<port>-<id-or-name>.<domain>` an exposed port (target.ts). The API key decides the project (another project's sandbox is a 404); requests to the daemon
 * are signed with the sandbox's forwarded-auth secret; the key itself never enters the sandbox. Bodies,
 * SSE and WebSockets are piped, never buffered.
 */
export function createProxyServer(options: ProxyOptions): http.Server {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 });
  const readTimeoutMs = options.readTimeoutMs ?? 300_000;

  async function resolve(req: IncomingMessage): Promise<Resolved> {
    const header = SANDBOX_ID_HEADERS.map((h) => req.headers[h]).find((v) => typeof v === "string") as
      | string
      | undefined;
    const target = proxyTarget(
      { host: req.headers.host, sandboxHeader: header, url: req.url },
      options.domain,
    );
    if (!target) throw new ProxyError("MISSING_SANDBOX_ID");
    // A page's WebSocket carries the key as a subprotocol (browser-access.ts): it authenticates as the
    // Authorization header would, and is never forwarded, to the daemon or to a user's port.
    const offered = subprotocolBearer(req.headers);
    const token = bearerToken(req.headers.authorization) ?? offered?.key ?? null;
    const auth = token ? await options.authenticate(token) : null;
    let row: SandboxRow | null = null;
    if (auth) row = await options.repo.find(auth.projectId, target.sandbox);
    else if (target.port !== MANAGEMENT_PORT) {
      // Unauthenticated requests reach only exposed user ports of sandboxes that allow it, by id.
      const candidate = await options.repo.get(target.sandbox);
      if (candidate?.allowUnauthenticatedAccess) row = candidate;
    }
    if (!row) {
      if (!auth) throw new ProxyError("UNAUTHORIZED");
      throw new ProxyError("SANDBOX_NOT_FOUND", `no sandbox ${target.sandbox}`);
    }
    if (target.port !== MANAGEMENT_PORT && !(row.exposedPorts ?? []).includes(target.port)) {
      throw new ProxyError("PORT_NOT_EXPOSED", `port ${target.port} is not in the sandbox's exposed_ports`);
    }
    if (row.status !== "running" || !row.address) {
      throw new ProxyError("SANDBOX_NOT_RUNNING", `the sandbox is ${row.status}`);
    }
    // The daemon's port comes from the recorded address; user ports are on the same sandbox address.
    const address = new URL(row.address);
    const port = target.port === MANAGEMENT_PORT ? Number(address.port || MANAGEMENT_PORT) : target.port;
    return {
      row,
      target,
      keyed: auth !== null,
      upstream: { host: address.hostname, port },
      subprotocols: offered?.rest,
    };
  }

  function upstreamHeaders(req: IncomingMessage, resolved: Resolved): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || DROPPED.has(name)) continue;
      if (name === "authorization" && resolved.keyed) continue;
      if (name === "sec-websocket-protocol" && resolved.subprotocols !== undefined) continue;
      headers[name] = value;
    }
    if (resolved.subprotocols) headers["sec-websocket-protocol"] = resolved.subprotocols;
    headers["x-forwarded-for"] = req.socket.remoteAddress ?? "";
    headers["x-forwarded-host"] = req.headers.host ?? "";
    if (resolved.target.port === MANAGEMENT_PORT) {
      headers[FORWARDED_AUTH_HEADER] = signForwardedAuth({
        secret: options.secretOf(resolved.row.id),
        sandboxId: resolved.row.id,
        method: req.method ?? "GET",
        pathAndQuery: resolved.target.path,
      });
      headers[FORWARDED_PROJECT_HEADER] = resolved.row.projectId;
    }
    return headers;
  }

  function fail(res: ServerResponse, error: unknown, cors: http.OutgoingHttpHeaders = {}): void {
    const { code, message } = classify(error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = JSON.stringify(errorBody(code, message));
    res.writeHead(errorCatalog[code].status, {
      ...cors,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  }

  function classify(error: unknown): { code: ErrorCode; message: string } {
    if (error instanceof ProxyError) return { code: error.code, message: error.message };
    const errno = (error as NodeJS.ErrnoException)?.code;
    if (errno === "ETIMEDOUT" || errno === "READ_TIMEOUT")
      return { code: "READ_TIMEOUT", message: "the sandbox did not answer in time" };
    if (
      errno === "ECONNREFUSED" ||
      errno === "ECONNRESET" ||
      errno === "EHOSTUNREACH" ||
      errno === "ENETUNREACH"
    ) {
      return { code: "CONNECTION_FAILED", message: `the sandbox did not accept the connection (${errno})` };
    }
    options.log?.("proxy request failed", { error: String(error) });
    return { code: "CONNECTION_FAILED", message: "the sandbox connection failed" };
  }

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Pages call the daemon's API cross-origin: preflights are answered here, answers carry CORS headers.
    const target = proxyTarget(
      { host: req.headers.host, sandboxHeader: undefined, url: req.url },
      options.domain,
    );
    const daemonApi = target === null || target.port === MANAGEMENT_PORT;
    const cors = daemonApi ? corsHeaders(req.headers) : {};
    if (daemonApi && isPreflight(req)) {
      req.resume();
      res.writeHead(204, preflightHeaders());
      res.end();
      return;
    }
    let resolved: Resolved;
    try {
      resolved = await resolve(req);
    } catch (error) {
      req.resume();
      fail(res, error, cors);
      return;
    }
    const dialer = options.dialer?.isRemote(resolved.row) ? options.dialer : null;
    const upstream = http.request({
      host: resolved.upstream.host,
      port: resolved.upstream.port,
      method: req.method,
      path: resolved.target.path,
      headers: upstreamHeaders(req, resolved),
      // A sandbox on another host: one connection through its relay per request (no agent: with one, Node
      // ignores createConnection).
      ...(dialer
        ? connectionThrough((port) => dialer.connect(resolved.row, port), resolved.upstream.port)
        : { agent }),
    });
    upstream.setTimeout(readTimeoutMs, () =>
      upstream.destroy(Object.assign(new Error("read timeout"), { code: "READ_TIMEOUT" })),
    );
    upstream.on("response", (answer) => {
      const headers: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !DROPPED.has(name)) headers[name] = value;
      }
      Object.assign(headers, cors);
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
      // SSE and long responses stream through: flush each chunk as it comes.
      res.flushHeaders();
      answer.pipe(res);
      answer.on("error", () => res.destroy());
    });
    upstream.on("error", (error) => fail(res, error, cors));
    req.pipe(upstream);
    req.on("error", () => upstream.destroy());
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
  }

  /** An error answer on a socket that asked to upgrade (no ServerResponse exists there). */
  function rawError(socket: Duplex, error: unknown): void {
    const { code, message } = classify(error);
    const status = errorCatalog[code].status;
    const body = JSON.stringify(errorBody(code, message));
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on("error", () => socket.destroy());
    let resolved: Resolved;
    try {
      resolved = await resolve(req);
    } catch (error) {
      rawError(socket, error);
      return;
    }
    const headers = upstreamHeaders(req, resolved);
    headers.connection = "Upgrade";
    headers.upgrade = req.headers.upgrade ?? "websocket";
    // A sandbox on another host: through its executor's relay, connected once the dialer resolves.
    const remote = options.dialer?.isRemote(resolved.row) ? options.dialer : null;
    let connecting: net.Socket;
    if (remote) {
      try {
        connecting = await remote.connect(resolved.row, resolved.upstream.port);
      } catch (error) {
        rawError(socket, error);
        return;
      }
      if (socket.destroyed) {
        connecting.destroy();
        return;
      }
    } else connecting = net.connect(resolved.upstream.port, resolved.upstream.host);
    connecting.on("error", (error) => rawError(socket, error));
    socket.on("close", () => connecting.destroy());
    const opened = () => {
      connecting.setNoDelay(true);
      (socket as net.Socket).setNoDelay?.(true);
      const sides = relay(socket, connecting);
      let head0 = `${req.method} ${resolved.target.path} HTTP/1.1\r\n`;
      for (const [name, value] of Object.entries(headers)) {
        for (const v of [value].flat()) head0 += `${name}: ${v}\r\n`;
      }
      sides.upstream.write(`${head0}\r\n`);
      if (head.length > 0) sides.upstream.write(head);
      sides.client.on("error", () => sides.client.destroy());
      // A daemon that drops the connection before answering anything is a 502, as a refused connection is.
      sides.upstream.on("error", (error) => {
        if ((sides.upstream as net.Socket).bytesRead === 0) rawError(sides.client, error);
        else sides.client.destroy();
      });
      sides.client.on("close", () => sides.upstream.destroy());
      sides.upstream.on("close", () => sides.client.destroy());
    };
    if (remote) opened();
    else connecting.once("connect", opened);
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    onRequest(req, res).catch((error) => fail(res, error));
  };
  const server: http.Server = options.tls
    ? https.createServer({ keepAliveTimeout: 65_000, cert: options.tls.cert, key: options.tls.key }, handle)
    : http.createServer({ keepAliveTimeout: 65_000 }, handle);
  server.on("upgrade", (req, socket, head) => {
    onUpgrade(req, socket, head).catch(() => socket.destroy());
  });
  server.on("close", () => agent.destroy());
  return server;
}
