import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { Client } from "./client.ts";
import {
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  SvcError,
} from "./errors.ts";

describe("SDK client", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  test("whoami answers the key's project", async () => {
    const me = await new Client({ apiKey: server.apiKey, baseUrl: server.url }).whoami();
    assert.match(me.id, /^key_/);
    assert.match(me.projectId, /^proj_/);
  });

  test("errors come back as typed classes by code", async () => {
    const bad = new Client({ apiKey: "svc_apiKey_nope", baseUrl: server.url });
    await assert.rejects(bad.whoami(), (e) => e instanceof AuthenticationError && e.code === "UNAUTHORIZED");
    const admin = new Client({ apiKey: server.apiKey, adminToken: server.adminToken, baseUrl: server.url });
    await assert.rejects(
      admin.keys.delete("key_missing"),
      (e) => e instanceof NotFoundError && e.code === "KEY_NOT_FOUND",
    );
    await assert.rejects(
      admin.projects.create("not a valid name!"),
      (e) => e instanceof InvalidRequestError && e.status === 400 && /body\.name/.test(e.message),
    );
    await assert.rejects(
      admin.keys.create({ project: "nope" }),
      (e) => e instanceof SvcError && e.code === "PROJECT_NOT_FOUND",
    );
    const down = new Client({ apiKey: server.apiKey, baseUrl: "http://127.0.0.1:1" });
    await assert.rejects(down.whoami(), (e) => e instanceof ConnectionError);
  });

  test("keys and projects round trip through the admin API", async () => {
    const admin = new Client({ adminToken: server.adminToken, baseUrl: server.url });
    const project = await admin.projects.create("sdk-test");
    const created = await admin.keys.create({ project: "sdk-test", name: "sdk" });
    assert.equal(created.project_id, project.id);
    const me = await new Client({ apiKey: created.key, baseUrl: server.url }).whoami();
    assert.equal(me.projectId, project.id);
    assert.ok((await admin.keys.list({ project: "sdk-test" })).some((k) => k.id === created.id));
    await admin.keys.delete(created.id);
    await assert.rejects(
      new Client({ apiKey: created.key, baseUrl: server.url }).whoami(),
      AuthenticationError,
    );
  });
});
