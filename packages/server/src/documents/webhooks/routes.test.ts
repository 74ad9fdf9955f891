import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { documentRoutes, generateWebhookSecret, validatorCompiler, WEBHOOK_EVENTS } from "@svc/contract";
import Fastify, { type FastifyInstance } from "fastify";
import { installErrorHandling } from "../../api/errors.ts";
import { type Authenticator, registerRoutes } from "../../api/routes.ts";
import { startTestServer, type TestServer } from "../../testing.ts";
import {
  allowLoopback,
  keepTrafficOnLoopback,
  type LoopbackServer,
  startLoopbackServer,
  tableLookup,
} from "../url-fetch.testing.ts";
import { notifyJobEvent, WebhookDispatcher, type WebhookHandlerOptions, webhookHandlers } from "./index.ts";
import { verifyStandardWebhook } from "./testing.ts";

/** The webhook routes of the contract, served by webhookHandlers on the test server's store. */
async function webhookApp(server: TestServer, options: WebhookHandlerOptions): Promise<FastifyInstance> {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  const authenticator: Authenticator = {
    apiKey: async (key) => {
      const found = await server.store.apiKeys.authenticate(key);
      return found
        ? { keyId: found.id, projectId: found.projectId, organizationId: found.organizationId }
        : null;
    },
    adminTokenHash: () => null,
    ownsNamespace: async () => false,
  };
  const routes = {
    createWebhook: documentRoutes.createWebhook,
    listWebhooks: documentRoutes.listWebhooks,
    getWebhook: documentRoutes.getWebhook,
    updateWebhook: documentRoutes.updateWebhook,
    deleteWebhook: documentRoutes.deleteWebhook,
    listWebhookDeliveries: documentRoutes.listWebhookDeliveries,
  };
  registerRoutes(app, routes, webhookHandlers(server.store, options), authenticator);
  await app.listen({ host: "127.0.0.1", port: 0 });
  return app;
}

describe("webhook routes", () => {
  let server: TestServer;
  let app: FastifyInstance;
  let strict: FastifyInstance;
  let base: string;
  let receiver: LoopbackServer;
  let otherKey: string;
  let net: ReturnType<typeof keepTrafficOnLoopback>;

  const call = async (method: string, path: string, body?: unknown, key = server.apiKey) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  before(async () => {
    net = keepTrafficOnLoopback();
    server = await startTestServer();
    app = await webhookApp(server, { allowPrivate: allowLoopback });
    strict = await webhookApp(server, {});
    const address = app.server.address();
    base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    receiver = await startLoopbackServer((_request, response) => response.writeHead(200).end());
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "webhooks-other");
    otherKey = (await server.store.apiKeys.create({ projectId: other.id })).key;
  });
  after(async () => {
    await app?.close();
    await strict?.close();
    await receiver?.close();
    await server?.stop();
    net?.remove();
    assert.deepEqual(net.stopped, [], "traffic tried to leave loopback");
  });

  it("creates a webhook with a generated secret, shown only in the create answer", async () => {
    const created = await call("POST", "/documents/v2/webhooks", { url: "https://hooks.example/parse" });
    assert.equal(created.status, 201);
    const { secret, ...webhook } = created.body;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.match(webhook.webhook_id, /^webhook_/);
    assert.deepEqual(webhook, {
      webhook_id: webhook.webhook_id,
      url: "https://hooks.example/parse",
      description: null,
      events: [...WEBHOOK_EVENTS],
      enabled: true,
      created_at: webhook.created_at,
      updated_at: webhook.created_at,
    });
    const got = await call("GET", `/documents/v2/webhooks/${webhook.webhook_id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, webhook);
    const listed = await call("GET", "/documents/v2/webhooks");
    assert.deepEqual(
      listed.body.webhooks.find((item: { webhook_id: string }) => item.webhook_id === webhook.webhook_id),
      webhook,
    );
    assert.ok(!JSON.stringify(listed.body).includes("whsec_"));

    const given = generateWebhookSecret();
    const withSecret = await call("POST", "/documents/v2/webhooks", {
      url: "http://hooks.example/x",
      secret: given,
      events: ["document_ingestion.job.failed"],
      description: "failures only",
    });
    assert.equal(withSecret.status, 201);
    assert.equal(withSecret.body.secret, given);
    assert.deepEqual(withSecret.body.events, ["document_ingestion.job.failed"]);
    assert.equal(withSecret.body.description, "failures only");
  });

  it("refuses URLs that are not http(s), carry credentials, or name a non-public address", async () => {
    for (const url of ["ftp://hooks.example/", "file:///etc/passwd", "hooks.example"]) {
      const answer = await call("POST", "/documents/v2/webhooks", { url });
      assert.equal(answer.status, 400, url);
      assert.equal(answer.body.details.code, "INVALID_REQUEST", url);
    }
    for (const [url, message] of [
      ["http://user:pw@hooks.example/", "webhook URL must not carry credentials"],
      ["http://10.0.0.1/hook", "webhook URL points to a private address (10.0.0.1)"],
      ["http://169.254.169.254/latest/meta-data/", "webhook URL points to a link-local"],
      ["http://[fd00::1]/", "webhook URL points to a private (unique local) address (fd00::1)"],
      ["http://0xa000001/", "webhook URL points to a private address (10.0.0.1)"],
    ]) {
      const answer = await call("POST", "/documents/v2/webhooks", { url });
      assert.equal(answer.status, 400, url);
      assert.equal(answer.body.code, "INVALID_CONFIGURATION", url);
      assert.ok(answer.body.message.startsWith(message), answer.body.message);
    }
    // Loopback is allowed on `app` by the test hook only.
    const loopback = await strict.inject({
      method: "POST",
      url: "/documents/v2/webhooks",
      headers: { authorization: `Bearer ${server.apiKey}` },
      payload: { url: `${receiver.url}/hook` },
    });
    assert.equal(loopback.statusCode, 400);
    assert.match(loopback.json().message, /loopback address \(127\.0\.0\.1\)/);
    const disabled = await call("POST", "/documents/v2/webhooks", {
      url: "https://hooks.example/",
      enabled: false,
    });
    assert.equal(disabled.status, 400);
    assert.equal(disabled.body.code, "INVALID_CONFIGURATION");
  });

  it("updates and deletes webhooks of the caller's project only", async () => {
    const { body: created } = await call("POST", "/documents/v2/webhooks", { url: "https://a.example/" });
    const path = `/documents/v2/webhooks/${created.webhook_id}`;
    const updated = await call("PUT", path, {
      url: "https://b.example/hook",
      events: ["document_ingestion.job.completed"],
      secret: generateWebhookSecret(),
      description: "renamed",
      enabled: true,
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.url, "https://b.example/hook");
    assert.deepEqual(updated.body.events, ["document_ingestion.job.completed"]);
    assert.equal(updated.body.description, "renamed");
    assert.equal(updated.body.secret, undefined);
    const refused = await call("PUT", path, { url: "http://192.168.1.1/" });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, "INVALID_CONFIGURATION");

    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { description: "x" }],
      ["DELETE", undefined],
    ] as const) {
      const answer = await call(method, path, body, otherKey);
      assert.equal(answer.status, 404, method);
      assert.equal(answer.body.code, "ENTITY_NOT_FOUND");
    }
    assert.equal((await call("GET", `${path}/deliveries`, undefined, otherKey)).status, 404);

    assert.equal((await call("DELETE", path)).status, 204);
    assert.equal((await call("DELETE", path)).status, 404);
    assert.equal((await call("GET", path)).status, 404);
    assert.equal((await call("GET", "/documents/v2/webhooks/webhook_missing")).body.code, "ENTITY_NOT_FOUND");
    assert.equal((await call("GET", "/documents/v2/webhooks", undefined, "svc_apiKey_wrong")).status, 401);
  });

  it("lists the delivery attempts of a webhook registered through the API", async () => {
    const created = await call("POST", "/documents/v2/webhooks", {
      url: `${receiver.url}/api-hook`,
      events: ["document_ingestion.job.completed"],
    });
    assert.equal(created.status, 201);
    const introspected = await server.store.apiKeys.authenticate(server.apiKey);
    const projectId = introspected?.projectId ?? "";
    const payload = {
      job_id: "parse_api",
      status: "successful" as const,
      created_at: new Date().toISOString(),
      dataset_id: null,
    };
    assert.ok(
      (await notifyJobEvent(server.store.db, {
        projectId,
        event: "document_ingestion.job.completed",
        payload,
      })) >= 1,
    );
    // Names resolve from an empty table: the other webhooks of the project (hooks.example...) never reach DNS.
    const dispatcher = new WebhookDispatcher({
      db: server.store.db,
      allowPrivate: allowLoopback,
      lookup: tableLookup({}),
    });
    await dispatcher.runOnce();

    const [request] = receiver.requests.filter((item) => item.url === "/api-hook");
    assert.ok(request, "the receiver got nothing");
    assert.ok(verifyStandardWebhook(created.body.secret, request.headers, request.body.toString()));
    const deliveries = await call(
      "GET",
      `/documents/v2/webhooks/${created.body.webhook_id}/deliveries?limit=10`,
    );
    assert.equal(deliveries.status, 200);
    assert.deepEqual(deliveries.body, {
      items: [
        {
          delivery_id: deliveries.body.items[0].delivery_id,
          webhook_id: created.body.webhook_id,
          message_id: request.headers["webhook-id"],
          event: "document_ingestion.job.completed",
          job_id: "parse_api",
          attempt: 1,
          status_code: 200,
          error: null,
          succeeded: true,
          at: deliveries.body.items[0].at,
          next_attempt_at: null,
        },
      ],
      has_more: false,
      next_cursor: null,
      prev_cursor: null,
    });
    const badCursor = await call(
      "GET",
      `/documents/v2/webhooks/${created.body.webhook_id}/deliveries?cursor=xyz`,
    );
    assert.equal(badCursor.status, 400);
    assert.equal(badCursor.body.code, "INVALID_QUERY_PARAMS");
    assert.equal(badCursor.body.details.code, "INVALID_CURSOR");
  });
});
