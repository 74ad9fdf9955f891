import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/**
 * A handler the control API port serves beside the contract's routes, at a path prefix and everything under it:
 * the server knows nothing of what it is (the CLI mounts the MCP endpoint at `/mcp`).
 */
export interface Mount {
  /** `/mcp`: the mount answers this path and every path under it, for every method. */
  prefix: string;
  /** Serves a request on Node's own objects; the body is unread. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void> | void;
  /** Ends what the mount holds; called while the API still answers, before it stops. */
  close?(): Promise<void>;
}

/** Serves the mounts in a scope of their own, whose bodies are left unread for the mount to read. */
export function installMounts(app: FastifyInstance, mounts: readonly Mount[]): void {
  if (mounts.length === 0) return;
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
    for (const mount of mounts) {
      const handler = async (request: FastifyRequest, reply: FastifyReply) => {
        reply.hijack();
        try {
          await mount.handle(request.raw, reply.raw);
        } catch (error) {
          if (!reply.raw.headersSent) {
            reply.raw.writeHead(500, { "content-type": "application/json" });
            reply.raw.end(JSON.stringify({ error: (error as Error).message, code: "INTERNAL_ERROR" }));
          } else reply.raw.end();
        }
      };
      scope.all(mount.prefix, handler);
      scope.all(`${mount.prefix}/*`, handler);
    }
  });
}
