import type { FastifyInstance } from "fastify";

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), except that an empty body is no body: clients
 * such as the public platform's Python SDK send `Content-Type: application/json` on every request, DELETEs
 * included. A route that needs a body still refuses the missing one through its schema.
 */
export function acceptEmptyJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (body.length === 0) return done(null, undefined);
    parseJson(request, body.toString(), done);
  });
}
