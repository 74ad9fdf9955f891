import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";

/**
 * Outbound HTTP to addresses given by users (`file_url`, webhook URLs), public addresses only. Every address is
 * checked where the socket gets it: literal IP hosts before the request, names inside the `lookup` the socket
 * connects with, so the connection goes to exactly the addresses checked (no DNS-rebinding window). Redirects
 * are followed by hand, each hop checked the same way.
 */

/** What went wrong, for callers that branch on it; the message is the reason shown to users. */
export type UrlFetchErrorKind =
  | "invalid_url"
  | "blocked_address"
  | "dns"
  | "connection"
  | "tls"
  | "timeout"
  | "too_large"
  | "http_status"
  | "redirect";

/** A refused or failed fetch; `message` is fit to be a job's `failure` reason. */
export class UrlFetchError extends Error {
  override name = "UrlFetchError";
  readonly kind: UrlFetchErrorKind;
  constructor(kind: UrlFetchErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** Which addresses may be reached although not public; a test hook (loopback receivers), never user input. */
export type AllowPrivate = (address: string) => boolean;

export interface AddressGuard {
  /** Resolves names; `dns.lookup` by default. Tests map names to addresses with it. */
  lookup?: LookupFunction;
  allowPrivate?: AllowPrivate;
}

// ---------------------------------------------------------------------------------------------------------------
// Address ranges

interface Range {
  bytes: Uint8Array;
  prefix: number;
  label: string;
}

/** IPv4 ranges that are not public (RFC 6890 and neighbours). */
const IPV4_RANGES: readonly Range[] = [
  ["0.0.0.0/8", "a 'this network'"],
  ["10.0.0.0/8", "a private"],
  ["100.64.0.0/10", "a shared (carrier-grade NAT)"],
  ["127.0.0.0/8", "a loopback"],
  ["169.254.0.0/16", "a link-local (cloud metadata)"],
  ["172.16.0.0/12", "a private"],
  ["192.0.0.0/24", "an IETF protocol"],
  ["192.0.2.0/24", "a documentation"],
  ["192.88.99.0/24", "a 6to4 relay"],
  ["192.168.0.0/16", "a private"],
  ["198.18.0.0/15", "a benchmarking"],
  ["198.51.100.0/24", "a documentation"],
  ["203.0.113.0/24", "a documentation"],
  ["224.0.0.0/4", "a multicast"],
  ["240.0.0.0/4", "a reserved"],
].map(([cidr, label]) => range(cidr, label));

/** IPv6 ranges that are not public. Ranges that embed an IPv4 address are in IPV6_EMBEDDING instead. */
const IPV6_RANGES: readonly Range[] = [
  ["::/96", "a reserved"], // ::, ::1 and the deprecated IPv4-compatible addresses
  ["64:ff9b:1::/48", "a local NAT64"],
  ["100::/64", "a discard"],
  ["2001::/23", "an IETF protocol"], // Teredo, benchmarking, ORCHID
  ["2001:db8::/32", "a documentation"],
  ["3fff::/20", "a documentation"],
  ["5f00::/16", "an SRv6"],
  ["fc00::/7", "a private (unique local)"],
  ["fe80::/10", "a link-local"],
  ["fec0::/10", "a site-local"],
  ["ff00::/8", "a multicast"],
].map(([cidr, label]) => range(cidr, label));

/** IPv6 ranges that carry an IPv4 address, checked as that address: byte offset of the IPv4 part. */
const IPV6_EMBEDDING: readonly { range: Range; offset: number }[] = [
  { range: range("::ffff:0:0/96", "IPv4-mapped"), offset: 12 },
  { range: range("64:ff9b::/96", "NAT64"), offset: 12 },
  { range: range("2002::/16", "6to4"), offset: 2 },
];

function range(cidr: string, label: string): Range {
  const [address, prefix] = cidr.split("/");
  const bytes = ipBytes(address);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: Number(prefix), label };
}

function inRange(bytes: Uint8Array, { bytes: base, prefix }: Range): boolean {
  if (bytes.length !== base.length) return false;
  const whole = prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== base[i]) return false;
  const rest = prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (bytes[whole] & mask) === (base[whole] & mask);
}

function ipv4Bytes(address: string): Uint8Array {
  return Uint8Array.from(address.split(".").map(Number));
}

/** The 4 or 16 bytes of an IP address in its usual text form (an IPv6 zone is ignored), or null. */
function ipBytes(text: string): Uint8Array | null {
  const address = text.replace(/%.*$/, "");
  const family = isIP(address);
  if (family === 4) return ipv4Bytes(address);
  if (family !== 6) return null;
  let groups = address;
  let tail: number[] = [];
  const lastColon = groups.lastIndexOf(":");
  if (groups.includes(".", lastColon)) {
    tail = [...ipv4Bytes(groups.slice(lastColon + 1))];
    groups = `${groups.slice(0, lastColon + 1)}0:0`;
  }
  const [head, after] = groups.split("::");
  const words = (part: string | undefined) => (part ? part.split(":").map((word) => parseInt(word, 16)) : []);
  const left = words(head);
  const right = words(after);
  const all =
    after === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

function formatIpv4(bytes: Uint8Array): string {
  return [...bytes].join(".");
}

/**
 * The kind of non-public range an address is in, such as "a private" or "a loopback" (to be followed by
 * "address"), or null when it is public. IPv6 addresses that embed an IPv4 address (mapped, NAT64, 6to4) are
 * judged by that address. Text that is not an IP address is never public.
 */
export function nonPublicRange(address: string): string | null {
  const bytes = ipBytes(address);
  if (!bytes) return "an unparsable";
  if (bytes.length === 4) return IPV4_RANGES.find((r) => inRange(bytes, r))?.label ?? null;
  for (const { range: embedding, offset } of IPV6_EMBEDDING) {
    if (!inRange(bytes, embedding)) continue;
    const label = nonPublicRange(formatIpv4(bytes.subarray(offset, offset + 4)));
    return label && `${label} (${embedding.label})`;
  }
  return IPV6_RANGES.find((r) => inRange(bytes, r))?.label ?? null;
}

function blockedLabel(address: string, guard: AddressGuard): string | null {
  const label = nonPublicRange(address);
  if (label === null) return null;
  return guard.allowPrivate?.(address.replace(/%.*$/, "")) ? null : label;
}

// ---------------------------------------------------------------------------------------------------------------
// One guarded request

/** How a URL is named in messages: "file_url", "webhook URL"; and whether it is a redirect's target. */
interface Subject {
  name: string;
  redirected: boolean;
}

function blockedError(subject: Subject, host: string, address: string, label: string): UrlFetchError {
  const where = `${label} address (${address})`;
  if (host === address) {
    return new UrlFetchError(
      "blocked_address",
      subject.redirected ? `${subject.name} redirects to ${where}` : `${subject.name} points to ${where}`,
    );
  }
  return new UrlFetchError(
    "blocked_address",
    subject.redirected
      ? `${subject.name} redirects to host ${host}, which resolves to ${where}`
      : `${subject.name} host ${host} resolves to ${where}`,
  );
}

/**
 * A `lookup` for sockets that resolves every address of the name, refuses the name when any of them is not
 * public, and hands the checked addresses to the socket.
 */
function guardedLookup(guard: AddressGuard, subject: Subject): LookupFunction {
  const resolve = guard.lookup ?? (dnsLookup as LookupFunction);
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, found, foundFamily) => {
      if (error) return callback(error, "", 0);
      const addresses: LookupAddress[] =
        typeof found === "string" ? [{ address: found, family: foundFamily ?? isIP(found) }] : found;
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "", 0);
      }
      for (const { address } of addresses) {
        const label = blockedLabel(address, guard);
        if (label) return callback(blockedError(subject, hostname, address, label), "", 0);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Parses and checks a URL given by a user: http or https, no credentials, a host. */
export function parsePublicUrl(text: string, subjectName: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UrlFetchError("invalid_url", `${subjectName} is not a valid URL`);
  }
  checkUrlShape(url, { name: subjectName, redirected: false });
  return url;
}

function checkUrlShape(url: URL, subject: Subject): void {
  const what = subject.redirected ? `${subject.name} redirects to a URL that` : subject.name;
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UrlFetchError(
      "invalid_url",
      `${what} must use http or https, not ${url.protocol.slice(0, -1)}`,
    );
  }
  if (url.username || url.password) {
    throw new UrlFetchError("invalid_url", `${what} must not carry credentials`);
  }
  if (!url.hostname) throw new UrlFetchError("invalid_url", `${what} has no host`);
}

/** `hostname` of a URL without the brackets of an IPv6 literal. */
function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Throws when the URL is not http(s), carries credentials, or names a non-public IP literal. Names are not
 * resolved here (they are checked at connect time), so this is an early check for input, not a guarantee.
 */
export function checkPublicUrl(text: string, subjectName: string, guard: AddressGuard = {}): URL {
  const url = parsePublicUrl(text, subjectName);
  const host = bareHost(url);
  const label = isIP(host) ? blockedLabel(host, guard) : null;
  if (label) throw blockedError({ name: subjectName, redirected: false }, host, host, label);
  return url;
}

const TLS_CODES = /^(CERT_|ERR_TLS_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|ERR_SSL_|HOSTNAME_MISMATCH)/;

function transportError(error: NodeJS.ErrnoException, url: URL, subject: Subject): UrlFetchError {
  if (error instanceof UrlFetchError) return error;
  const name = subject.redirected ? `${subject.name} redirect target` : subject.name;
  const host = bareHost(url);
  const hostPort = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
  const code = error.code ?? "";
  if (code === "ENOTFOUND" || code === "ENODATA")
    return new UrlFetchError("dns", `${name} host ${host} does not resolve`);
  if (code === "EAI_AGAIN")
    return new UrlFetchError("dns", `${name} host ${host} could not be resolved (DNS failure)`);
  if (code === "ECONNREFUSED")
    return new UrlFetchError("connection", `${name} ${hostPort} refused the connection`);
  if (code === "ECONNRESET" || code === "EPIPE" || error.message === "socket hang up") {
    return new UrlFetchError("connection", `${name} ${hostPort} closed the connection`);
  }
  if (code === "EHOSTUNREACH" || code === "ENETUNREACH" || code === "ETIMEDOUT") {
    return new UrlFetchError("connection", `${name} ${hostPort} is unreachable (${code})`);
  }
  if (TLS_CODES.test(code)) {
    return new UrlFetchError("tls", `${name} ${hostPort} has no valid TLS certificate (${code})`);
  }
  return new UrlFetchError("connection", `${name} request failed: ${error.message}`);
}

export interface PublicRequestOptions extends AddressGuard {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Ends the exchange; when aborted with a UrlFetchError reason, that error is what the caller gets. */
  signal: AbortSignal;
  /** How the URL is named in error messages, e.g. "file_url" or "webhook URL". */
  subject: string;
  /** Set while following redirects: messages then speak of the redirect. */
  redirected?: boolean;
}

function abortReason(signal: AbortSignal, fallback: Error): Error {
  return signal.reason instanceof Error ? signal.reason : fallback;
}

/**
 * Sends one request to a public address and resolves with the response once its headers arrive (redirects are
 * not followed). The caller reads or destroys the response; `signal` ends it too.
 */
export async function requestPublicUrl(url: URL, options: PublicRequestOptions): Promise<IncomingMessage> {
  const subject: Subject = { name: options.subject, redirected: options.redirected ?? false };
  checkUrlShape(url, subject);
  const host = bareHost(url);
  // The socket skips `lookup` for literal addresses, so those are checked here.
  if (isIP(host)) {
    const label = blockedLabel(host, options);
    if (label) throw blockedError(subject, host, host, label);
  }
  const { signal } = options;
  if (signal.aborted) throw abortReason(signal, new Error("aborted"));
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: options.method ?? "GET",
      headers:
        options.body === undefined
          ? options.headers
          : { ...options.headers, "content-length": String(Buffer.byteLength(options.body)) },
      // A fresh agent: a pooled socket could have been opened to an address this request did not check.
      agent: false,
      lookup: guardedLookup(options, subject),
      signal,
    });
    request.on("response", resolve);
    request.on("error", (error: NodeJS.ErrnoException) => {
      reject(signal.aborted ? abortReason(signal, error) : transportError(error, url, subject));
    });
    request.end(options.body);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// file_url

export interface FetchPublicUrlOptions extends AddressGuard {
  /** Largest body accepted, checked against Content-Length and while streaming. */
  maxBytes: number;
  /** Time for the whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Redirects followed at most; 5 by default. */
  maxRedirects?: number;
  /** How the URL is named in error messages; "file_url" by default. */
  subject?: string;
}

export interface FetchedFile {
  bytes: Uint8Array;
  /** Content-Type without parameters, lowercase. */
  mimeType?: string;
  /** From Content-Disposition, else the last segment of the final URL's path. */
  fileName?: string;
  /** The URL after redirects. */
  finalUrl: string;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/** A duration for messages: "300 ms", "1.5 s". */
export function formatDuration(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(1)} s` : `${ms} ms`;
}

async function readLimited(
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
  subject: string,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new UrlFetchError("too_large", `${subject} is larger than the limit of ${formatBytes(maxBytes)}`);
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of response as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        response.destroy();
        throw tooLarge();
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof UrlFetchError) throw error;
    if (signal.aborted) throw abortReason(signal, error as Error);
    throw new UrlFetchError("connection", `${subject} closed the connection before the whole body was read`);
  }
  if (signal.aborted) throw abortReason(signal, new Error("aborted"));
  if (response.complete === false) {
    throw new UrlFetchError("connection", `${subject} closed the connection before the whole body was read`);
  }
  const bytes = Buffer.concat(chunks, total);
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A file name fit to store: the last path segment, without control characters, at most 255 characters. */
function cleanFileName(name: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const base = (name.split(/[/\\]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim();
  if (base === "" || base === "." || base === "..") return undefined;
  return base.slice(0, 255);
}

function decodeOr(text: string, fallback: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return fallback;
  }
}

/** The file name of a Content-Disposition header: `filename*` (RFC 8187) first, then `filename`. */
export function contentDispositionFileName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const extended = /filename\*\s*=\s*([^';\s]*)'[^']*'([^;\s]+)/i.exec(header);
  if (extended) {
    const charset = extended[1].toLowerCase();
    if (charset === "utf-8" || charset === "") return cleanFileName(decodeOr(extended[2], extended[2]));
    if (charset === "iso-8859-1") return cleanFileName(percentDecodeLatin1(extended[2]));
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(header);
  if (quoted) return cleanFileName(quoted[1].replace(/\\(.)/g, "$1"));
  const token = /filename\s*=\s*([^;\s]+)/i.exec(header);
  return token ? cleanFileName(token[1]) : undefined;
}

function percentDecodeLatin1(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function urlFileName(url: URL): string | undefined {
  const last = url.pathname.split("/").pop() ?? "";
  return last ? cleanFileName(decodeOr(last, last)) : undefined;
}

function mimeTypeOf(header: string | undefined): string | undefined {
  const type = header?.split(";")[0].trim().toLowerCase();
  return type && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : undefined;
}

/**
 * Downloads a URL from a public address: http(s) only, no credentials, every address of every hop public
 * (checked on the address the socket connects to), redirects followed up to `maxRedirects`, the body at most
 * `maxBytes`, everything within `timeoutMs`. Throws UrlFetchError with a reason fit for users.
 */
export async function fetchPublicUrl(url: string, options: FetchPublicUrlOptions): Promise<FetchedFile> {
  const subject = options.subject ?? "file_url";
  const maxRedirects = options.maxRedirects ?? 5;
  let current = parsePublicUrl(url, subject);
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new UrlFetchError(
          "timeout",
          `${subject} did not finish downloading within ${formatDuration(options.timeoutMs)}`,
        ),
      ),
    options.timeoutMs,
  );
  try {
    const visited = new Set<string>();
    for (let redirects = 0; ; redirects++) {
      visited.add(current.href);
      const response = await requestPublicUrl(current, {
        lookup: options.lookup,
        allowPrivate: options.allowPrivate,
        signal: controller.signal,
        subject,
        redirected: redirects > 0,
        headers: { accept: "*/*", "accept-encoding": "identity", "user-agent": "svc-documents/1" },
      });
      const status = response.statusCode ?? 0;
      if (REDIRECT_STATUSES.has(status)) {
        response.destroy();
        const location = response.headers.location;
        if (!location)
          throw new UrlFetchError("redirect", `${subject} answered HTTP ${status} without a Location`);
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw new UrlFetchError("redirect", `${subject} redirects to an invalid URL`);
        }
        if (visited.has(next.href)) throw new UrlFetchError("redirect", `${subject} redirects in a loop`);
        if (redirects >= maxRedirects) {
          throw new UrlFetchError("redirect", `${subject} redirects more than ${maxRedirects} times`);
        }
        current = next;
        continue;
      }
      if (status < 200 || status > 299) {
        response.destroy();
        throw new UrlFetchError(
          "http_status",
          `${subject} answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ""}`,
        );
      }
      const bytes = await readLimited(response, options.maxBytes, controller.signal, subject);
      return {
        bytes,
        mimeType: mimeTypeOf(response.headers["content-type"]),
        fileName: contentDispositionFileName(response.headers["content-disposition"]) ?? urlFileName(current),
        finalUrl: current.href,
      };
    }
  } finally {
    clearTimeout(timer);
  }
}
