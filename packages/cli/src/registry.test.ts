import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { runSvc } from "./svc.testing.ts";

let server: TestServer;
let env: Record<string, string>;
before(async () => {
  server = await startTestServer();
  env = { SVC_API_URL: server.url, SERVICE_API_KEY: server.apiKey, SVC_DATA_DIR: "/nonexistent" };
});
after(() => server.stop());

test("svc registry login (password on stdin), list without the password, logout", async () => {
  const login = await runSvc(
    ["registry", "login", "registry.example.com:5000", "--username", "ci", "--password-stdin"],
    env,
    { input: "s3cret-token\n" },
  );
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stdout, /saved credentials of ci for registry\.example\.com:5000/);
  const listed = await runSvc(["registry", "list", "--json"], env);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    JSON.parse(listed.stdout).map((c: { registry: string; username: string }) => [c.registry, c.username]),
    [["registry.example.com:5000", "ci"]],
  );
  assert.equal(listed.stdout.includes("s3cret"), false);
  assert.equal((await runSvc(["registry", "logout", "registry.example.com:5000"], env)).code, 0);
  const again = await runSvc(["registry", "logout", "registry.example.com:5000"], env);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /REGISTRY_CREDENTIAL_NOT_FOUND|no credentials/);
  const usage = await runSvc(["registry", "login", "registry.example.com"], env);
  assert.equal(usage.code, 2);
});
