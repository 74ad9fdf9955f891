import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type ErrorCode, errorBody, errorCatalog } from "@svc/contract/errors";
import { FORWARDED_AUTH_HEADER, verifyForwardedAuth } from "@svc/contract/forwarded-auth";
import type { RouteDef } from "@svc/contract/route";
import type { WebSocket, WebSocketServer } from "ws";
import type { DaemonApp, DaemonAppOptions, DaemonReply, DaemonRequest } from "./app.ts";

// Not `import … from "node:http"`: the ESM facade of node:http reads every export, and its lazy getters load
// undici (~15 ms of start-up); the CommonJS object does not.
const { STATUS_CODES } = process.getBuiltinModule("node:http");

/** Largest WebSocket message the daemon accepts (PTY input, tunnel data). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface UpgradeRequest {
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Completes the handshake (101); call once every check has passed. */
  accept(): Promise<WebSocket>;
  /**
   * Completes the handshake (101) and hands over the connection, for a route that reads and writes the frames
   * itself (the TCP tunnel streams them); `head` is what was read past the request. A request that is not a valid
   * WebSocket handshake is answered 400 and rejects.
   */
  acceptRaw(): Promise<{ socket: Duplex; head: Buffer }>;
  /** Answers the upgrade request with a catalog error instead. */
  reject(code: ErrorCode, message?: string): void;
}

export type UpgradeHandler = (request: UpgradeRequest) => void | Promise<void>;

interface UpgradeRoute {
  path: string;
  pattern: RegExp;
  names: string[];
  handler: UpgradeHandler;
  open: boolean;
}

/** The key of a client's handshake: 16 bytes, base64 (RFC 6455 §4.1). */
const WEBSOCKET_KEY = /^[+/0-9A-Za-z]{22}==$/;
const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/**
 * The 101 answer to a WebSocket handshake (RFC 6455 §4.2), with no extension and the client's first subprotocol
 * (as `ws` answers); undefined when the request is not a valid handshake.
 */
export function websocketHandshake(req: IncomingMessage): string | undefined {
  const key = req.headers["sec-websocket-key"];
  const version = req.headers["sec-websocket-version"];
  if (req.headers.upgrade?.toLowerCase() !== "websocket") return undefined;
  if (typeof key !== "string" || !WEBSOCKET_KEY.test(key)) return undefined;
  if (version !== "13" && version !== "8") return undefined;
  const accept = createHash("sha1")
    .update(key + WEBSOCKET_GUID)
    .digest("base64");
  const protocol = req.headers["sec-websocket-protocol"]?.split(",")[0]?.trim();
  return (
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    `Sec-WebSocket-Accept: ${accept}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ""}\r\n`
  );
}

/** Writes an HTTP error answer on a socket that asked to upgrade (no ServerResponse exists there). */
export function rejectUpgrade(socket: Duplex, code: ErrorCode, message?: string): void {
  const { status } = errorCatalog[code];
  const body = JSON.stringify(errorBody(code, message));
  if (!socket.writable) return void socket.destroy();
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * The daemon's WebSocket routes (`responseKind: "websocket"` in the contract). Node hands upgrade requests to the
 * server's `upgrade` event, not to its request handler, so they are matched here against their contract paths; each one
 * checks forwarded auth like every other route, then its handler runs its own checks (token, port, connect) and
 * either accepts the handshake or answers a catalog error: an error is a plain HTTP answer, never a 101 followed
 * by a close.
 */
export class UpgradeRouter {
  /** Made (and `ws` loaded) at the first WebSocket handshake: most sandboxes never open one. */
  #wss: Promise<WebSocketServer> | undefined;
  readonly #routes: UpgradeRoute[] = [];
  readonly #options: DaemonAppOptions;

  constructor(options: DaemonAppOptions) {
    this.#options = options;
  }

  add(route: RouteDef, handler: UpgradeHandler): void {
    const names: string[] = [];
    const source = route.path
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (!name) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(name);
        return "([^/]+)";
      })
      .join("");
    this.#routes.push({
      path: route.path,
      pattern: new RegExp(`^${source}/?$`),
      names,
      handler,
      open: route.auth === "none",
    });
  }

  /**
   * Takes over the `upgrade` event of the app's server, and serves each route's path to plain requests too: they
   * get the route's own answers to bad input (a 400 for a bad port, a 403 for a bad token), and 426
   * UPGRADE_REQUIRED where a handshake would have been accepted.
   */
  attach(app: DaemonApp): void {
    app.server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on("error", () => socket.destroy());
      this.#dispatch(req, socket, head).catch(() => rejectUpgrade(socket, "INTERNAL_ERROR"));
    });
    for (const route of this.#routes) {
      // Open to the app: the route checks forwarded auth itself, as on the upgrade path.
      app.route("GET", route.path, (request, reply) => this.#plain(route, request, reply), {
        open: true,
        rawBody: true,
      });
    }
  }

  async #plain(route: UpgradeRoute, request: DaemonRequest, reply: DaemonReply): Promise<DaemonReply> {
    const answer = (code: ErrorCode, message?: string) => {
      if (!reply.sent) reply.code(errorCatalog[code].status).json(errorBody(code, message));
    };
    if (!route.open && !this.#forwarded(request.raw)) {
      answer("UNAUTHORIZED", "The request does not carry the sandbox proxy's forwarded auth");
      return reply;
    }
    const notUpgraded = (): never => {
      answer("UPGRADE_REQUIRED");
      throw new Error("not a WebSocket upgrade");
    };
    try {
      await route.handler({
        req: request.raw,
        params: request.params as Record<string, string>,
        query: new URL(request.url, "http://daemon").searchParams,
        reject: answer,
        accept: async () => notUpgraded(),
        acceptRaw: async () => notUpgraded(),
      });
    } catch {}
    answer("UPGRADE_REQUIRED");
    return reply;
  }

  async #dispatch(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? "/", "http://daemon");
    const found = this.#routes
      .map((route) => ({ route, match: route.pattern.exec(url.pathname) }))
      .find((candidate) => candidate.match);
    if (!found?.match || req.method !== "GET") {
      return rejectUpgrade(socket, "ROUTE_NOT_FOUND", `no WebSocket route ${req.method} ${url.pathname}`);
    }
    if (!found.route.open && !this.#forwarded(req)) {
      return rejectUpgrade(
        socket,
        "UNAUTHORIZED",
        "The request does not carry the sandbox proxy's forwarded auth",
      );
    }
    const params: Record<string, string> = {};
    found.route.names.forEach((name, i) => {
      params[name] = decodeURIComponent(found.match?.[i + 1] ?? "");
    });
    let settled = false;
    await found.route.handler({
      req,
      params,
      query: url.searchParams,
      reject: (code, message) => {
        if (settled) return;
        settled = true;
        rejectUpgrade(socket, code, message);
      },
      acceptRaw: async () => {
        settled = true;
        const handshake = websocketHandshake(req);
        if (handshake === undefined) {
          rejectUpgrade(socket, "INVALID_REQUEST", "not a valid WebSocket handshake");
          throw new Error("not a valid WebSocket handshake");
        }
        if (socket.destroyed || !socket.writable) throw new Error("the client went away");
        socket.write(handshake);
        const tcp = socket as { setNoDelay?: (on: boolean) => void; setTimeout?: (ms: number) => void };
        tcp.setNoDelay?.(true);
        tcp.setTimeout?.(0);
        return { socket, head };
      },
      accept: async () => {
        settled = true;
        this.#wss ??= import("ws").then(
          ({ WebSocketServer }) =>
            new WebSocketServer({
              noServer: true,
              maxPayload: MAX_MESSAGE_BYTES,
              perMessageDeflate: false,
              clientTracking: false,
            }),
        );
        const wss = await this.#wss;
        return new Promise<WebSocket>((resolve, reject) => {
          if (socket.destroyed) return reject(new Error("the client went away"));
          wss.handleUpgrade(req, socket, head, (ws) => {
            (socket as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
            resolve(ws);
          });
          // handleUpgrade answers a bad handshake itself (400) and never calls back.
          socket.once("close", () => reject(new Error("the handshake did not complete")));
        });
      },
    });
  }

  #forwarded(req: IncomingMessage): boolean {
    const header = req.headers[FORWARDED_AUTH_HEADER];
    return verifyForwardedAuth({
      secret: this.#options.authSecret,
      sandboxId: this.#options.sandboxId,
      method: req.method ?? "GET",
      pathAndQuery: req.url ?? "/",
      header: typeof header === "string" ? header : undefined,
    });
  }
}
