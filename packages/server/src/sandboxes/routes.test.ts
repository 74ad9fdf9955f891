import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sandboxRoutes } from "@svc/contract";
import { startTestServer, type TestServer } from "../testing.ts";

/** The sandbox lifecycle API on a server with no executor: everything but actually running sandboxes. */
describe("sandbox API without an executor", () => {
  let server: TestServer;
  let otherKey: string;
  before(async () => {
    server = await startTestServer({ executor: "none" });
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "other");
    otherKey = (await server.store.apiKeys.create({ projectId: other.id })).key;
  });
  after(() => server.stop());

  async function call(method: string, path: string, body?: unknown, key = server.apiKey) {
    const response = await fetch(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: Record<string, unknown> | string = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely in assertions
    return { status: response.status, body: parsed as Record<string, any> };
  }

  test("create answers pending at once; the record is filled truthfully", async () => {
    const created = await call("POST", "/sandboxes", {
      resources: { cpus: 0.5, memory_mb: 256 },
      name: "alpha",
    });
    assert.equal(created.status, 200);
    assert.match(created.body.sandbox_id, /^sbx-[a-z2-7]{20}$/);
    assert.equal(created.body.status, "pending");
    const got = await call("GET", `/sandboxes/${created.body.sandbox_id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.id, created.body.sandbox_id);
    assert.equal("sandbox_id" in got.body, false, "the official SDKs refuse a record with both id names");
    assert.equal(got.body.namespace, "default");
    assert.deepEqual(got.body.resources, {
      cpus: 0.5,
      memory_mb: 256,
      disk_mb: 10240,
      ephemeral_disk_mb: 10240,
    });
    assert.equal(got.body.terminated_at, null);
    assert.ok(Math.abs(got.body.created_at - Date.now()) < 60_000, "created_at is in milliseconds");
    assert.equal(got.body.allow_unauthenticated_access, false);
    // A *.localhost proxy domain does not resolve through glibc: the URL names the proxy's address instead.
    assert.equal(
      got.body.sandbox_url,
      `http://127.0.0.1:${server.proxyPort}/sandboxes/${created.body.sandbox_id}`,
    );
    assert.equal(created.body.sandbox_url, got.body.sandbox_url);
    assert.equal(got.body.ingress_endpoint, `http://sandbox.localhost:${server.proxyPort}`);
    // With no executor on this server it waits, saying why.
    await new Promise((r) => setTimeout(r, 400));
    const waiting = await call("GET", "/sandboxes/alpha");
    assert.equal(waiting.body.status, "pending");
    assert.equal(waiting.body.pending_reason, "no_executors_available");
  });

  test("the start timeline: empty while waiting for an executor; a start's steps as stored; 404 for unknown ids", async () => {
    const created = await call("POST", "/sandboxes", { name: "timed" });
    const waiting = await call("GET", "/sandboxes/timed/start-timeline");
    assert.equal(waiting.status, 200);
    assert.deepEqual(waiting.body, {
      sandbox_id: created.body.sandbox_id,
      status: "pending",
      created_at: waiting.body.created_at,
      start_began_at: null,
      running_at: null,
      steps: [],
    });
    // What an executor's start leaves on the row (the scheduler writes it), read back through the store.
    const steps = [
      { step: "image", from_ms: 0, to_ms: 1.5 },
      { step: "launch", from_ms: 1.5, to_ms: 40.2 },
    ];
    const began = waiting.body.created_at + 10;
    await server.sandboxes.repo.update(created.body.sandbox_id, {
      startTimeline: { beganAt: began, steps },
      startedAt: began + 41,
    });
    const stored = await call("GET", `/sandboxes/${created.body.sandbox_id}/start-timeline`);
    assert.equal(stored.body.start_began_at, began);
    assert.equal(stored.body.running_at, began + 41);
    assert.deepEqual(stored.body.steps, steps);
    const unknown = await call("GET", "/sandboxes/sbx-nothing/start-timeline");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, "SANDBOX_NOT_FOUND");
    await call("DELETE", `/sandboxes/${created.body.sandbox_id}`);
  });

  test("names are unique among live sandboxes; PATCH renames, sets ports and network", async () => {
    const a = await call("POST", "/sandboxes", { name: "beta" });
    assert.equal((await call("POST", "/sandboxes", { name: "beta" })).status, 409);
    const b = await call("POST", "/sandboxes", { name: "gamma" });
    const clash = await call("PATCH", `/sandboxes/${b.body.sandbox_id}`, { name: "beta" });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.code, "SANDBOX_NAME_TAKEN");
    const patched = await call("PATCH", "/sandboxes/gamma", {
      name: "delta",
      exposed_ports: [8080, 9501, 3000],
      allow_unauthenticated_access: true,
      network: { allow_internet_access: false, allow_out: ["10.0.0.0/8", "example.com"] },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.name, "delta");
    assert.deepEqual(patched.body.exposed_ports, [8080, 3000]);
    assert.equal(patched.body.allow_unauthenticated_access, true);
    assert.equal(patched.body.network_policy.allow_internet_access, false);
    assert.deepEqual(patched.body.network, patched.body.network_policy, "network: the name the SDKs read");
    const cleared = await call("PATCH", "/sandboxes/delta", { exposed_ports: [], network: null });
    assert.equal(cleared.body.exposed_ports, null);
    assert.equal(cleared.body.network_policy, null);
    // A terminated sandbox frees its name.
    await call("DELETE", `/sandboxes/${a.body.sandbox_id}`);
    assert.equal((await call("POST", "/sandboxes", { name: "beta" })).status, 200);
  });

  test("network policies are checked on create and PATCH: bad entries are 400, naming the entry; wildcards pass", async () => {
    for (const [network, field] of [
      [{ allow_out: ["10.0.0.0/8", "300.1.1.1"] }, "network.allow_out[1]"],
      [{ deny_out: ["exa_mple.com"] }, "network.deny_out[0]"],
      [{ allow_internet_access: false, allow_out: ["*.*.pypi.org"] }, "network.allow_out[0]"],
      [{ deny_out: ["*evil.example"] }, "network.deny_out[0]"],
    ] as const) {
      const created = await call("POST", "/sandboxes", { network });
      assert.equal(created.status, 400, JSON.stringify(network));
      assert.equal(created.body.code, "INVALID_REQUEST");
      assert.match(created.body.error, new RegExp(field.replace(/[[\].]/g, "\\$&")));
    }
    const wildcard = await call("POST", "/sandboxes", {
      network: { allow_internet_access: false, allow_out: ["*.pypi.org"], deny_out: ["*.evil.example"] },
    });
    assert.equal(wildcard.status, 200, "wildcards are enforced by the sandbox's name server");
    const ok = await call("POST", "/sandboxes", { network: { deny_out: ["10.9.9.9"] } });
    assert.equal(ok.status, 200);
    const bad = await call("PATCH", `/sandboxes/${ok.body.sandbox_id}`, {
      network: { allow_out: ["bad..name"] },
    });
    assert.equal(bad.status, 400);
    const kept = await call("GET", `/sandboxes/${ok.body.sandbox_id}`);
    assert.deepEqual(kept.body.network_policy.deny_out, ["10.9.9.9"], "the stored policy is unchanged");
  });

  test("DELETE of a pending sandbox ends it cancelled; it is idempotent; unknown ids are 404", async () => {
    const created = await call("POST", "/sandboxes", {});
    const id = created.body.sandbox_id;
    const deleted = await call("DELETE", `/sandboxes/${id}`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.status, "terminated");
    assert.equal(deleted.body.termination_reason, "cancelled");
    const again = await call("DELETE", `/sandboxes/${id}`);
    assert.equal(again.status, 200);
    assert.equal(again.body.status, "terminated");
    assert.equal((await call("DELETE", "/sandboxes/sbx-neverexisted")).status, 404);
  });

  test("another project's sandbox is not found, in every form", async () => {
    const created = await call("POST", "/sandboxes", { name: "mine" });
    const id = created.body.sandbox_id;
    for (const [method, path] of [
      ["GET", `/sandboxes/${id}`],
      ["GET", "/sandboxes/mine"],
      ["DELETE", `/sandboxes/${id}`],
      ["PATCH", `/sandboxes/${id}`],
    ]) {
      const response = await call(method, path, method === "PATCH" ? { name: "x" } : undefined, otherKey);
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.equal(response.body.code, "SANDBOX_NOT_FOUND");
    }
    const theirs = await call("GET", "/sandboxes", undefined, otherKey);
    assert.ok(!theirs.body.sandboxes.some((s: { id: string }) => s.id === id));
    assert.equal((await call("GET", `/sandboxes/${id}`)).status, 200);
  });

  test("every sandbox control route is served under /v1/namespaces/{ns} too, for the key's own namespace", async () => {
    const created = await call("POST", "/v1/namespaces/default/sandboxes", { name: "ns" });
    assert.equal(created.status, 200);
    const got = await call("GET", `/v1/namespaces/default/sandboxes/${created.body.sandbox_id}`);
    assert.equal(got.body.name, "ns");
    const other = await call("GET", "/v1/namespaces/other/sandboxes");
    assert.equal(other.status, 404);
    assert.equal(other.body.code, "PROJECT_NOT_FOUND");
    // Sub-resources and the other collections: every route declared namespaced answers in both forms alike.
    for (const route of Object.values(sandboxRoutes).filter((r) => r.namespaced)) {
      const path = route.path
        .replace("{sandbox_id}", created.body.sandbox_id)
        .replace(/\{[a-z_]+\}/g, "none");
      const plain = await call(
        route.method,
        path,
        route.method === "GET" || route.method === "DELETE" ? undefined : {},
      );
      const namespaced = await call(
        route.method,
        `/v1/namespaces/default${path}`,
        route.method === "GET" || route.method === "DELETE" ? undefined : {},
      );
      assert.notEqual(namespaced.body?.code, "ROUTE_NOT_FOUND", `${route.method} ${route.path}`);
      assert.equal(namespaced.status, plain.status, `${route.method} ${route.path}`);
    }
  });

  test("a POST whose body fields are all optional may come empty, with no Content-Type (the SDKs' snapshot and claim)", async () => {
    const created = await call("POST", "/sandboxes", {});
    for (const path of [`/sandboxes/${created.body.sandbox_id}/snapshot`, "/sandbox-pools/none/sandboxes"]) {
      const empty = await call("POST", path);
      assert.notEqual(empty.status, 400, `${path}: ${JSON.stringify(empty.body)}`);
      assert.equal(empty.status, (await call("POST", path, {})).status, path);
    }
    // A body that is there is still validated.
    assert.equal(
      (await call("POST", `/sandboxes/${created.body.sandbox_id}/snapshot`, { bogus: 1 })).status,
      400,
    );
  });

  test("list pages newest first with cursors; status=running gives the live set", async () => {
    for (let i = 0; i < 5; i++) await call("POST", "/sandboxes", { name: `page-${i}` });
    const all: string[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 50; guard++) {
      const page = await call("GET", `/sandboxes?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      assert.equal(page.status, 200);
      assert.ok(page.body.sandboxes.length <= 2);
      all.push(...page.body.sandboxes.map((s: { id: string }) => s.id));
      cursor = page.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    const full = (await call("GET", "/sandboxes?limit=1000")).body.sandboxes.map((s: { id: string }) => s.id);
    assert.deepEqual(all, full);
    const created = (await call("GET", "/sandboxes?limit=1000")).body.sandboxes.map(
      (s: { created_at: number }) => s.created_at,
    );
    assert.deepEqual(
      created,
      [...created].sort((a, b) => b - a),
    );
    const running = await call("GET", "/sandboxes?status=running");
    assert.deepEqual(running.body.sandboxes, []);
    assert.equal((await call("GET", "/sandboxes?cursor=bm9wZQ")).status, 400);
  });

  test("max_pending_secs ends a sandbox that found no host: terminated, no_capacity", async () => {
    const created = await call("POST", "/sandboxes", { max_pending_secs: 1 });
    const id = created.body.sandbox_id;
    // biome-ignore lint/suspicious/noExplicitAny: JSON bodies read freely in assertions
    let body: Record<string, any> = {};
    for (let i = 0; i < 40; i++) {
      body = (await call("GET", `/sandboxes/${id}`)).body;
      if (body.status === "terminated") break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(body.status, "terminated");
    assert.equal(body.termination_reason, "no_capacity");
  });
});
