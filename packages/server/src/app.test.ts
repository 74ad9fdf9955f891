import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { colonPath, controlRoutes, defineRoutes, validatorCompiler } from "@svc/contract";
import Fastify from "fastify";
import Type from "typebox";
import { installErrorHandling } from "./api/errors.ts";
import { registerRoutes } from "./api/routes.ts";
import { startTestServer, type TestServer } from "./testing.ts";

describe("control server", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });
  const introspect = (authorization?: string) =>
    fetch(`${server.url}/platform/v1/keys/introspect`, {
      method: "POST",
      headers: authorization === undefined ? {} : { authorization },
    });

  test("serves /openapi.json with every served route in it, and every control route of the contract served", async () => {
    const response = await get("/openapi.json");
    assert.equal(response.status, 200);
    const doc = (await response.json()) as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    assert.equal(doc.openapi, "3.1.0");
    const documented = new Set<string>();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) documented.add(`${method.toUpperCase()} ${colonPath(path)}`);
    }
    const served = new Set(
      server.app.servedRoutes.filter((r) => !r.outsideContract).map((r) => `${r.method} ${r.url}`),
    );
    assert.ok(served.size > 20);
    for (const route of served)
      assert.ok(documented.has(route), `${route} is served but not in /openapi.json`);
    for (const route of Object.values(controlRoutes)) {
      const key = `${route.method} ${colonPath(route.path)}`;
      assert.ok(served.has(key), `${key} is in the contract but not served`);
    }
  });

  test("introspect answers the key's project with the bootstrap key", async () => {
    const response = await introspect(`Bearer ${server.apiKey}`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as Record<string, string>;
    assert.match(body.id, /^key_/);
    assert.match(body.projectId, /^proj_/);
    assert.match(body.organizationId, /^org_/);
    const projects = await server.store.projects.list();
    assert.equal(projects.find((p) => p.id === body.projectId)?.name, "default");
  });

  test("a missing, malformed, unknown or deleted key gets 401 with the documented body", async () => {
    const project = await server.store.projects.get("default");
    assert.ok(project);
    const created = await server.store.apiKeys.create({ projectId: project.id });
    assert.equal((await introspect(`Bearer ${created.key}`)).status, 200);
    await server.store.apiKeys.delete(created.info.id);
    const cases = [
      undefined,
      "",
      "Bearer",
      "Basic dXNlcjpwYXNz",
      server.apiKey,
      `Bearer ${server.apiKey}x`,
      `Bearer svc_apiKey_${"A".repeat(43)}`,
      `Bearer ${created.key}`,
      `Bearer ${server.adminToken}`,
    ];
    for (const authorization of cases) {
      const response = await introspect(authorization);
      assert.equal(response.status, 401, `authorization ${authorization}`);
      const body = (await response.json()) as Record<string, string>;
      assert.equal(body.code, "UNAUTHORIZED");
      assert.equal(typeof body.error, "string");
      assert.equal(body.error, body.message);
    }
  });

  test("admin routes take the admin token and refuse project keys", async () => {
    const withAdmin = await get("/admin/v1/keys", { authorization: `Bearer ${server.adminToken}` });
    assert.equal(withAdmin.status, 200);
    const keys = ((await withAdmin.json()) as { keys: { id: string; prefix: string }[] }).keys;
    assert.ok(keys.length >= 1);
    assert.ok(keys.every((k) => !("key" in k) && k.prefix.length < 20));
    const withKey = await get("/admin/v1/keys", { authorization: `Bearer ${server.apiKey}` });
    assert.equal(withKey.status, 401);
  });

  test("a route of the contract with no handler answers 501 after auth and validation", async () => {
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    installErrorHandling(app);
    const route = defineRoutes({
      pending: {
        method: "POST",
        path: "/not-yet",
        summary: "a route declared before it is served",
        tag: "test",
        surface: "control",
        auth: "apiKey",
        body: Type.Object({ n: Type.Integer() }),
        status: 200,
        responseKind: "empty",
      },
    });
    registerRoutes(
      app,
      route,
      {},
      {
        apiKey: async (key) => (key === "good" ? { keyId: "k", projectId: "p", organizationId: "o" } : null),
        adminTokenHash: () => null,
        ownsNamespace: async () => true,
      },
    );
    const send = (authorization: string | undefined, body: string) =>
      app.inject({
        method: "POST",
        url: "/not-yet",
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        payload: body,
      });
    assert.equal((await send(undefined, "{}")).statusCode, 401);
    assert.equal((await send("Bearer good", '{"n":"x"}')).statusCode, 400, "validated first");
    const pending = await send("Bearer good", '{"n":1}');
    assert.equal(pending.statusCode, 501);
    assert.equal(pending.json().code, "NOT_IMPLEMENTED");
    await app.close();
  });

  test("unknown routes are a JSON 404", async () => {
    const response = await get("/no/such/route");
    assert.equal(response.status, 404);
    assert.equal(((await response.json()) as { code: string }).code, "ROUTE_NOT_FOUND");
  });
});
