/**
 * # context-tar
 *
 * Reads a build context, a tar (plain or gzip) as `docker build` sends it, into its entries, so the server can
 * find the Dockerfile and hash the files a `COPY` takes (the step's cache key) without unpacking anything on the
 * host. Paths are normalised and must stay inside the context: an entry named `../x` or `/x` is refused.
 * ustar, GNU long names (`L`/`K`) and pax `path`/`linkpath` records are understood.
 */
import { createHash } from "node:crypto";
import { posix } from "node:path";
import { gunzipSync } from "node:zlib";

export interface ContextEntry {
  /** Relative to the context root, normalised, no leading `./` or trailing `/`. */
  path: string;
  type: "file" | "dir" | "symlink" | "hardlink" | "other";
  mode: number;
  size: number;
  /** sha256 hex of a file's bytes; of the link target for links. */
  digest: string;
  /** A file's bytes (the Dockerfile is read from them). */
  data: Buffer | null;
  linkName: string | null;
}

export class ContextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ContextError";
  }
}

const BLOCK = 512;

function text(block: Buffer, start: number, length: number): string {
  const slice = block.subarray(start, start + length);
  const end = slice.indexOf(0);
  return slice.subarray(0, end < 0 ? slice.length : end).toString("utf8");
}

function octal(block: Buffer, start: number, length: number): number {
  const raw = text(block, start, length).trim();
  if (raw === "") return 0;
  if (!/^[0-7]+$/.test(raw)) throw new ContextError("the context is not a tar archive (a bad number field)");
  return Number.parseInt(raw, 8);
}

/** `a/./b/` → `a/b`; null for the root itself; throws for a path that leaves the root. */
export function contextPath(raw: string): string | null {
  if (raw.startsWith("/")) throw new ContextError(`the context holds an absolute path ${raw}`);
  const normal = posix.normalize(raw).replace(/\/+$/, "");
  if (normal === "." || normal === "") return null;
  if (normal === ".." || normal.startsWith("../"))
    throw new ContextError(`the context holds a path outside it: ${raw}`);
  return normal;
}

function paxRecords(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space < 0) break;
    const length = Number(data.subarray(offset, space).toString("ascii"));
    if (!Number.isInteger(length) || length <= 0) break;
    const record = data.subarray(space + 1, offset + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    offset += length;
  }
  return out;
}

/** The entries of a context tar; gzip is detected by its magic bytes. */
export function readContextTar(archive: Buffer): ContextEntry[] {
  let bytes = archive;
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new ContextError(`the context is not a valid gzip: ${(error as Error).message}`);
    }
  }
  if (bytes.length === 0) return [];
  if (bytes.length % BLOCK !== 0 && bytes.length < BLOCK)
    throw new ContextError("the context is not a tar archive");
  const entries = new Map<string, ContextEntry>();
  let offset = 0;
  let longName: string | null = null;
  let longLink: string | null = null;
  let pax = new Map<string, string>();
  while (offset + BLOCK <= bytes.length) {
    const header = bytes.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const checksum = octal(header, 148, 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i];
    if (sum !== checksum) throw new ContextError("the context is not a tar archive (bad header checksum)");
    const size = octal(header, 124, 12);
    const typeFlag = String.fromCharCode(header[156] || 0x30);
    const dataStart = offset + BLOCK;
    if (dataStart + size > bytes.length) throw new ContextError("the context tar is cut short");
    const data = bytes.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (typeFlag === "L") {
      longName = text(data, 0, data.length);
      continue;
    }
    if (typeFlag === "K") {
      longLink = text(data, 0, data.length);
      continue;
    }
    if (typeFlag === "x") {
      pax = paxRecords(data);
      continue;
    }
    if (typeFlag === "g") continue;
    const prefix = text(header, 345, 155);
    const name =
      pax.get("path") ?? longName ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
    const link = pax.get("linkpath") ?? longLink ?? text(header, 157, 100);
    longName = null;
    longLink = null;
    pax = new Map();
    const path = contextPath(name);
    if (path === null) continue;
    const type =
      typeFlag === "0" || typeFlag === "7"
        ? "file"
        : typeFlag === "5"
          ? "dir"
          : typeFlag === "2"
            ? "symlink"
            : typeFlag === "1"
              ? "hardlink"
              : "other";
    entries.set(path, {
      path,
      type,
      mode: octal(header, 100, 8) & 0o7777,
      size: type === "file" ? size : 0,
      digest: createHash("sha256")
        .update(type === "file" ? data : link)
        .digest("hex"),
      data: type === "file" ? Buffer.from(data) : null,
      linkName: type === "symlink" || type === "hardlink" ? link : null,
    });
  }
  return [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A `COPY` source as Docker reads it: relative to the context, `*`, `?` and `[...]` as globs. */
function sourceMatcher(source: string): (path: string) => boolean {
  const normal = contextPath(source.replace(/^\/+/, ""));
  if (normal === null) return () => true;
  if (!/[*?[]/.test(normal)) return (path) => path === normal || path.startsWith(`${normal}/`);
  const pattern = normal
    .split("")
    .map((c) =>
      c === "*"
        ? "[^/]*"
        : c === "?"
          ? "[^/]"
          : c === "[" || c === "]"
            ? c
            : c.replace(/[.+^${}()|\\]/g, "\\$&"),
    )
    .join("");
  const re = new RegExp(`^${pattern}(?:/.*)?$`);
  return (path) => re.test(path);
}

/**
 * The digest of what a `COPY`/`ADD` takes from the context: every entry under each source (path, type, mode,
 * content). A source that matches nothing is a ContextError, as `docker build` fails on it.
 */
export function sourcesDigest(entries: readonly ContextEntry[], sources: readonly string[]): string {
  const hash = createHash("sha256");
  for (const source of sources) {
    const matches = sourceMatcher(source);
    const taken = entries.filter((entry) => matches(entry.path));
    if (taken.length === 0 && contextPath(source.replace(/^\/+/, "")) !== null) {
      throw new ContextError(`COPY source ${source} is not in the build context`);
    }
    hash.update(`source ${contextPath(source.replace(/^\/+/, "")) ?? "."}\n`);
    for (const entry of taken) hash.update(`${entry.path}\0${entry.type}\0${entry.mode}\0${entry.digest}\n`);
  }
  return hash.digest("hex");
}
