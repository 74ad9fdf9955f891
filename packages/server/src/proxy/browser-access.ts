import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from "node:http";
import { BEARER_SUBPROTOCOL_PREFIX, RUNTIME_CORS_HEADERS } from "@svc/contract/browser-access";

/**
 * What the proxy does for web pages (the console) that call a sandbox's daemon API from another origin. The
 * credential is always the API key the page sends (Authorization, or a `bearer.<key>` WebSocket subprotocol),
 * never a cookie: any origin may call, and answers never allow credentials.
 */

const METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS";

/** Whether a request is a CORS preflight (OPTIONS with Access-Control-Request-Method). */
export function isPreflight(req: IncomingMessage): boolean {
  return req.method === "OPTIONS" && typeof req.headers["access-control-request-method"] === "string";
}

/** The CORS headers of an answer to a request from a page (none for a request without an Origin). */
export function corsHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  if (typeof headers.origin !== "string") return {};
  return {
    "access-control-allow-origin": "*",
    "access-control-expose-headers": "content-type, content-length",
  };
}

/** The answer to a preflight: the methods and the headers the runtime API reads. */
export function preflightHeaders(): OutgoingHttpHeaders {
  return {
    "access-control-allow-origin": "*",
    "access-control-allow-methods": METHODS,
    "access-control-allow-headers": RUNTIME_CORS_HEADERS.join(", "),
    "access-control-max-age": "600",
    "content-length": "0",
  };
}

/**
 * The key of a WebSocket handshake that offers `bearer.<key>` as a subprotocol, and the offered list without
 * that entry (empty when nothing else was offered); null when no entry is a bearer.
 */
export function subprotocolBearer(headers: IncomingHttpHeaders): { key: string; rest: string } | null {
  const offered = headers["sec-websocket-protocol"];
  if (typeof offered !== "string") return null;
  const entries = offered
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bearer = entries.find((entry) => entry.startsWith(BEARER_SUBPROTOCOL_PREFIX));
  if (!bearer) return null;
  return {
    key: bearer.slice(BEARER_SUBPROTOCOL_PREFIX.length),
    rest: entries.filter((entry) => !entry.startsWith(BEARER_SUBPROTOCOL_PREFIX)).join(", "),
  };
}
