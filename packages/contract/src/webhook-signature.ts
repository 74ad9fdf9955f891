import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import Type, { type Static } from "typebox";
import { nullable, Rfc3339 } from "./common.ts";

/**
 * Webhooks of parse jobs, signed per the Standard Webhooks scheme (https://www.standardwebhooks.com):
 * `webhook-id` (the message id, the same on every retry), `webhook-timestamp` (Unix seconds) and
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, keyed by the base64-decoded part of
 * a `whsec_<base64>` secret.
 */

export const WEBHOOK_EVENTS = [
  "document_ingestion.job.created",
  "document_ingestion.job.completed",
  "document_ingestion.job.failed",
] as const;
export const WebhookEventName = Type.Enum([...WEBHOOK_EVENTS], { $id: "WebhookEventName" });
export type WebhookEventName = Static<typeof WebhookEventName>;

/** Body of every webhook request. `status` is the parse job's status (the values of ParseStatus). */
export const WebhookPayload = Type.Object(
  {
    job_id: Type.String(),
    status: Type.Enum(["pending", "processing", "successful", "failure"]),
    created_at: Rfc3339,
    dataset_id: Type.Optional(nullable(Type.String())),
  },
  { $id: "WebhookPayload" },
);
export type WebhookPayload = Static<typeof WebhookPayload>;

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** How far a `webhook-timestamp` may be from now, by default, before verification fails. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECS = 300;

/** A type alias, not an interface, so it can be passed where a plain header record is expected. */
export type WebhookHeaders = {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
};

/** A new `whsec_` secret with a 32-byte random key. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64");
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The HMAC key of a `whsec_<base64>` secret (the prefix is optional), or null when it is not one. */
function secretKey(secret: string): Buffer | null {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  if (encoded.length === 0 || encoded.length % 4 !== 0 || !BASE64.test(encoded)) return null;
  const key = Buffer.from(encoded, "base64");
  return key.length > 0 ? key : null;
}

function signature(key: Buffer, id: string, timestamp: string, body: string | Uint8Array): Buffer {
  return createHmac("sha256", key).update(`${id}.${timestamp}.`).update(body).digest();
}

function unixSeconds(time: Date | number): number {
  return typeof time === "number" ? Math.floor(time) : Math.floor(time.getTime() / 1000);
}

/**
 * The headers that sign one webhook request. `timestamp` is a Date or Unix seconds; `body` must be the exact bytes
 * sent. Throws a TypeError when the secret is not `whsec_<base64>`.
 */
export function signWebhook(input: {
  secret: string;
  id: string;
  timestamp: Date | number;
  body: string | Uint8Array;
}): WebhookHeaders {
  const key = secretKey(input.secret);
  if (!key) throw new TypeError("webhook secret must be whsec_ followed by a base64 key");
  const timestamp = String(unixSeconds(input.timestamp));
  const mac = signature(key, input.id, timestamp, input.body).toString("base64");
  return { "webhook-id": input.id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${mac}` };
}

type HeaderValue = string | readonly string[] | undefined | null;
/** A Fetch `Headers` or a plain record such as Node's IncomingHttpHeaders. */
export type WebhookHeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, HeaderValue>>;

function header(headers: WebhookHeaderSource, name: string): string | null {
  if (typeof (headers as { get?: unknown }).get === "function") {
    const value = (headers as { get(name: string): unknown }).get(name);
    return typeof value === "string" ? value : null;
  }
  for (const [key, value] of Object.entries(headers as Record<string, HeaderValue>)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.length === 1 && typeof value[0] === "string") return value[0];
    return null;
  }
  return null;
}

/**
 * True when the request carries a valid signature of `body` by `secret` and its timestamp is within
 * `toleranceSecs` of `now`. Headers are a Fetch `Headers` or a plain object (any letter case). Several
 * space-separated signatures may be present (during secret rotation); one match is enough. Comparison is
 * constant-time. Never throws: malformed input is simply not verified.
 */
export function verifyWebhook(input: {
  secret: string;
  headers: WebhookHeaderSource;
  body: string | Uint8Array;
  toleranceSecs?: number;
  now?: Date;
}): boolean {
  try {
    const key = secretKey(input.secret);
    if (!key) return false;
    const id = header(input.headers, "webhook-id");
    const timestamp = header(input.headers, "webhook-timestamp");
    const signatures = header(input.headers, "webhook-signature");
    if (!id || !timestamp || !signatures || !/^\d{1,15}$/.test(timestamp)) return false;

    const tolerance = input.toleranceSecs ?? DEFAULT_WEBHOOK_TOLERANCE_SECS;
    const now = unixSeconds(input.now ?? new Date());
    if (!(Math.abs(now - Number(timestamp)) <= tolerance)) return false;

    const expected = signature(key, id, timestamp, input.body);
    let matched = false;
    for (const entry of signatures.split(" ")) {
      const comma = entry.indexOf(",");
      if (comma < 0 || entry.slice(0, comma) !== "v1") continue;
      const encoded = entry.slice(comma + 1);
      if (!BASE64.test(encoded)) continue;
      const candidate = Buffer.from(encoded, "base64");
      // Every candidate is compared, so timing does not tell which one matched.
      if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
    }
    return matched;
  } catch {
    return false;
  }
}
