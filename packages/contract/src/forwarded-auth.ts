/**
 * Forwarded auth: how the sandbox proxy tells the in-sandbox daemon that a request was authenticated.
 *
 * The proxy checks the caller's API key (or the sandbox's unauthenticated-access setting), then adds
 * `x-svc-forwarded-auth: v1,<unix-seconds>,<signature>` where the signature is the base64url HMAC-SHA256, keyed
 * with the sandbox's own secret, of the canonical string
 *
 *     v1 \n <unix-seconds> \n <METHOD> \n <path and query, exactly as sent on the wire> \n <sandbox id>
 *
 * The daemon recomputes it with the same secret (handed to it when the sandbox starts) and accepts the request
 * when the signatures match and the timestamp is within the allowed skew. A per-sandbox secret means a header
 * captured in one sandbox opens nothing in another; the method and path bind it to one operation.
 *
 * The body is not signed: process stdin and file contents stream through the proxy and are not buffered. That
 * is sound because the daemon listens only on the sandbox's private address, which only the host (and so the
 * proxy) can reach; the signature proves the request passed the proxy's checks, it does not protect the
 * connection. Within the skew window a captured header could be replayed for the same method and path, which
 * again needs access to the private network. `x-svc-forwarded-project` carries the caller's project id for logs;
 * it is informational and not signed.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const FORWARDED_AUTH_HEADER = "x-svc-forwarded-auth";
export const FORWARDED_PROJECT_HEADER = "x-svc-forwarded-project";
export const FORWARDED_AUTH_VERSION = "v1";
/** Default allowed difference, in seconds, between the proxy's clock and the daemon's. */
export const FORWARDED_AUTH_SKEW_SECS = 300;

export interface ForwardedAuthTarget {
  /** The sandbox's forwarded-auth secret. */
  secret: string | Uint8Array;
  /** The sandbox's id (not its name). */
  sandboxId: string;
  method: string;
  /** The request target as sent on the wire: path plus `?query` when present, not re-encoded. */
  pathAndQuery: string;
}

export interface SignForwardedAuthOptions extends ForwardedAuthTarget {
  /** Milliseconds since the Unix epoch; default `Date.now()`. */
  now?: number;
}

export interface VerifyForwardedAuthOptions extends ForwardedAuthTarget {
  /** The header value as received; a repeated header (an array) is rejected. */
  header: string | readonly string[] | null | undefined;
  /** Milliseconds since the Unix epoch; default `Date.now()`. */
  now?: number;
  skewSecs?: number;
}

/** The string the signature covers. */
export function forwardedAuthCanonicalString(
  target: Omit<ForwardedAuthTarget, "secret">,
  timestamp: number,
): string {
  return [
    FORWARDED_AUTH_VERSION,
    String(timestamp),
    target.method.toUpperCase(),
    target.pathAndQuery,
    target.sandboxId,
  ].join("\n");
}

function hmac(secret: string | Uint8Array, message: string): Buffer {
  return createHmac("sha256", secret).update(message, "utf8").digest();
}

/** A fresh random secret for a new sandbox: 32 bytes, base64url. */
export function generateForwardedAuthSecret(): string {
  return randomBytes(32).toString("base64url");
}

/**
 * The header value for one request.
 *
 * @example
 * headers[FORWARDED_AUTH_HEADER] = signForwardedAuth({ secret, sandboxId, method: "GET", pathAndQuery: "/api/v1/info" });
 */
export function signForwardedAuth(options: SignForwardedAuthOptions): string {
  if (options.secret.length === 0) throw new TypeError("forwarded-auth secret must not be empty");
  const timestamp = Math.floor((options.now ?? Date.now()) / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0)
    throw new RangeError("now must be a time after 1970");
  const signature = hmac(options.secret, forwardedAuthCanonicalString(options, timestamp)).toString(
    "base64url",
  );
  return `${FORWARDED_AUTH_VERSION},${timestamp},${signature}`;
}

/** `v1,<unix seconds>,<43 base64url characters: 32 bytes>` */
const HEADER_FORM = /^v1,(0|[1-9]\d{0,11}),([A-Za-z0-9_-]{43})$/;

/**
 * Whether a forwarded-auth header is valid for this request. Malformed, repeated, expired, future-dated and
 * wrongly signed headers all give false; nothing throws.
 */
export function verifyForwardedAuth(options: VerifyForwardedAuthOptions): boolean {
  const { header, secret } = options;
  if (typeof header !== "string" || secret.length === 0) return false;
  const match = HEADER_FORM.exec(header);
  if (!match) return false;
  const timestamp = Number(match[1]);
  const skew = options.skewSecs ?? FORWARDED_AUTH_SKEW_SECS;
  const nowSecs = Math.floor((options.now ?? Date.now()) / 1000);
  if (!(Math.abs(nowSecs - timestamp) <= skew)) return false;
  const given = Buffer.from(match[2], "base64url");
  const expected = hmac(secret, forwardedAuthCanonicalString(options, timestamp));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
