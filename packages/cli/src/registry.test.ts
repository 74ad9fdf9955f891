import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";

const main = path.join(import.meta.dirname, "main.ts");

/** Runs `svc` with `input` on its stdin. */
function svc(args: string[], env: Record<string, string>, input = "") {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

let server: TestServer;
let env: Record<string, string>;
before(async () => {
  server = await startTestServer();
  env = { SVC_API_URL: server.url, SERVICE_API_KEY: server.apiKey, SVC_DATA_DIR: "/nonexistent" };
});
after(() => server.stop());

test("svc registry login (password on stdin), list without the password, logout", async () => {
  const login = await svc(
    ["registry", "login", "registry.example.com:5000", "--username", "ci", "--password-stdin"],
    env,
    "s3cret-token\n",
  );
  assert.equal(login.code, 0, login.stderr);
  assert.match(login.stdout, /saved credentials of ci for registry\.example\.com:5000/);
  const listed = await svc(["registry", "list", "--json"], env);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(
    JSON.parse(listed.stdout).map((c: { registry: string; username: string }) => [c.registry, c.username]),
    [["registry.example.com:5000", "ci"]],
  );
  assert.equal(listed.stdout.includes("s3cret"), false);
  assert.equal((await svc(["registry", "logout", "registry.example.com:5000"], env)).code, 0);
  const again = await svc(["registry", "logout", "registry.example.com:5000"], env);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /REGISTRY_CREDENTIAL_NOT_FOUND|no credentials/);
  const usage = await svc(["registry", "login", "registry.example.com"], env);
  assert.equal(usage.code, 2);
});
