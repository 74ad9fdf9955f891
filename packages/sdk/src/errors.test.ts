import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { Client } from "./client.ts";
import {
  ClientError,
  ConflictError,
  ConnectionError,
  errorFromResponse,
  SandboxTerminatedError,
  ServerError,
  SvcError,
  TimeoutError,
} from "./errors.ts";

test("an answer's class follows the catalog status of its code, else the HTTP status", () => {
  const conflict = errorFromResponse(409, { code: "SANDBOX_NOT_RUNNING", error: "the sandbox is pending" });
  assert.ok(conflict instanceof SvcError && !(conflict instanceof ClientError));
  assert.equal(conflict.code, "SANDBOX_NOT_RUNNING");
  assert.equal(conflict.message, "the sandbox is pending");
  const unknown = errorFromResponse(503, "busy");
  assert.ok(unknown instanceof ServerError);
  assert.equal(unknown.code, "HTTP_503");
  assert.ok(errorFromResponse(409, {}) instanceof ConflictError);
});

test("client-side failures are one family with status 0", () => {
  const failures = [
    new ConnectionError("down"),
    new TimeoutError("slow"),
    new SandboxTerminatedError("ended", "ImageNotFound"),
    new SandboxTerminatedError("ended", null),
    new ClientError("no record", "NO_RECORD"),
  ];
  for (const failure of failures) {
    assert.ok(failure instanceof ClientError && failure instanceof SvcError, failure.name);
    assert.equal(failure.status, 0);
  }
  assert.deepEqual(
    failures.map((failure) => [failure.name, failure.code]),
    [
      ["ConnectionError", "CONNECTION_FAILED"],
      ["TimeoutError", "TIMEOUT"],
      ["SandboxTerminatedError", "ImageNotFound"],
      ["SandboxTerminatedError", "SANDBOX_TERMINATED"],
      ["ClientError", "NO_RECORD"],
    ],
  );
});

describe("waiting for a sandbox on a server without an executor", () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer();
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  });
  after(() => server.stop());

  test("a wait that runs out is a TimeoutError naming the pending reason", async () => {
    const sandbox = await client.sandboxes.create({});
    await assert.rejects(sandbox.waitUntilRunning({ timeoutMs: 300 }), (error) => {
      assert.ok(error instanceof TimeoutError, String(error));
      assert.equal(error.code, "TIMEOUT");
      assert.match(error.message, /still pending \(no_executors_available\)/);
      return true;
    });
    await sandbox.delete();
  });

  test("a sandbox ended by max_pending_secs is a SandboxTerminatedError with the contract's reason", async () => {
    const sandbox = await client.sandboxes.create({ max_pending_secs: 1 });
    await assert.rejects(sandbox.waitUntilRunning({ timeoutMs: 120_000 }), (error) => {
      assert.ok(error instanceof SandboxTerminatedError, String(error));
      assert.equal(error.terminationReason, "no_capacity");
      assert.equal(error.code, "no_capacity");
      assert.equal(error.status, 0);
      return true;
    });
    assert.equal(sandbox.record?.termination_reason, "no_capacity");
  });
});
