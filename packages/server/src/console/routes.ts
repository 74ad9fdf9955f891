import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendError } from "../api/errors.ts";

/**
 * The web console: static files built by the install step (packages/console), served at `/` (its page) and
 * `/console/*` (its scripts, styles and fonts) on the control API port. The server knows only the folder. These
 * routes are outside the contract (not in OpenAPI): their config says so and `servedRoutes` marks them.
 */

/** The console package's build output, the default of `consoleDir`. */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL("../../../console/dist", import.meta.url));

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".wasm": "application/wasm",
  ".bcmap": "application/octet-stream",
  ".pfb": "application/octet-stream",
  ".ttf": "font/ttf",
};

/** Route config of routes outside the contract: app.ts leaves them out of the contract's route checks. */
export const OUTSIDE_CONTRACT = { outsideContract: true } as const;

/** A file path under `root` for a URL path below `/console/`, or null when it would leave the root. */
export function consoleFile(root: string, relative: string): string | null {
  if (relative.includes("\0") || relative.split("/").some((part) => part === ".." || part === "."))
    return null;
  const resolved = path.resolve(root, relative);
  return resolved.startsWith(root + path.sep) ? resolved : null;
}

export function installConsole(app: FastifyInstance, consoleDir: string | null): void {
  const root = path.resolve(consoleDir ?? DEFAULT_CONSOLE_DIR);

  async function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    file: string | null,
  ): Promise<FastifyReply> {
    if (!file) return sendError(reply, "ROUTE_NOT_FOUND", `no console file ${request.url.split("?")[0]}`);
    const index = path.join(root, "index.html");
    if (!(await isFile(index))) return sendError(reply, "CONSOLE_NOT_BUILT", `no console build in ${root}`);
    if (!(await isFile(file))) return sendError(reply, "ROUTE_NOT_FOUND", `no console file ${request.url}`);
    const type = TYPES[path.extname(file)] ?? "application/octet-stream";
    reply.header("content-type", type);
    reply.header("x-content-type-options", "nosniff");
    // The page is small and names its assets; both are checked again on each load (the build may change).
    reply.header("cache-control", "no-cache");
    const gzip = `${file}.gz`;
    const acceptsGzip = /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""));
    if (acceptsGzip && (await isFile(gzip))) {
      reply.header("content-encoding", "gzip");
      reply.header("vary", "accept-encoding");
      return reply.send(createReadStream(gzip));
    }
    return reply.send(createReadStream(file));
  }

  app.get("/", { config: OUTSIDE_CONTRACT }, (request, reply) =>
    serve(request, reply, path.join(root, "index.html")),
  );
  app.get("/console/*", { config: OUTSIDE_CONTRACT }, (request, reply) =>
    serve(request, reply, consoleFile(root, (request.params as { "*": string })["*"])),
  );
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => null))?.isFile() ?? false;
}
