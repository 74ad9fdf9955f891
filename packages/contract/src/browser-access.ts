/**
 * How a web page reaches a sandbox's runtime API through the proxy. A page cannot set headers on a WebSocket,
 * so it offers its API key as a subprotocol `bearer.<key>` next to a real one (`svc`): the proxy takes the key
 * from there, drops that entry before the daemon sees the handshake, and the daemon answers with the other one.
 * Plain HTTP calls carry the key in Authorization as any client does; the proxy answers their CORS preflights.
 */
export const BEARER_SUBPROTOCOL_PREFIX = "bearer.";

/** The subprotocol a page offers beside its bearer entry, which the daemon echoes. */
export const RUNTIME_SUBPROTOCOL = "svc";

/** Headers a page may send to the runtime API through the proxy (answered in CORS preflights). */
export const RUNTIME_CORS_HEADERS = ["authorization", "content-type", "x-svc-sandbox-id", "x-pty-token"];

/** The subprotocols a page offers for a runtime WebSocket authenticated by `key`. */
export function runtimeSubprotocols(key: string): string[] {
  return [RUNTIME_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX + key];
}
