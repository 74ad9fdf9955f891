import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { FORWARDED_AUTH_HEADER, signForwardedAuth } from "@svc/contract/forwarded-auth";
import { ensureDaemonBundle } from "./daemon-bundle.ts";
import { DEFAULT_APP_ROOT } from "./launch.ts";

/**
 * The daemon as sandboxes run it: the bundle (with its request validators compiled at bundle time, not by Ajv
 * at run time) started on loopback, answering good and bad requests as the daemon's sources do.
 */

const SECRET = "bundle-test-secret";
const SANDBOX_ID = "sbx-bundle-test";
let dir: string;
let child: ChildProcess;
let baseUrl: string;
let bundleSource: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-daemon-bundle-test-"));
  const bundle = await ensureDaemonBundle({ cacheDir: join(dir, "cache") });
  bundleSource = await readFile(bundle, "utf8");
  await symlink(join(DEFAULT_APP_ROOT, "node_modules"), join(dir, "cache", "node_modules"));
  child = spawn(
    process.execPath,
    [bundle, "--host", "127.0.0.1", "--port", "0", "--auth-secret", SECRET, "--sandbox-id", SANDBOX_ID],
    { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "" } },
  );
  baseUrl = await new Promise<string>((resolve, reject) => {
    let err = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const url = /listening on (\S+)/.exec(err)?.[1];
      if (url) resolve(url);
    });
    child.once("exit", (code) => reject(new Error(`the bundle exited ${code}: ${err}`)));
  });
});

after(async () => {
  child?.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, pathAndQuery: string, json?: unknown) {
  const response = await fetch(baseUrl + pathAndQuery, {
    method,
    headers: {
      [FORWARDED_AUTH_HEADER]: signForwardedAuth({
        secret: SECRET,
        sandboxId: SANDBOX_ID,
        method,
        pathAndQuery,
      }),
      ...(json === undefined ? {} : { "content-type": "application/json" }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    json: text ? JSON.parse(text.startsWith("data:") ? "{}" : text) : {},
  };
}

describe("the daemon bundle", () => {
  test("holds its validators compiled, not Ajv's compiler", () => {
    assert.match(bundleSource, /svc-precompiled|ajv\/dist\/runtime/);
    assert.doesNotMatch(bundleSource, /node_modules\/ajv\/dist\/core\.js/);
  });

  test("validates bodies with the contract's rules: strict types, closed objects, defaults applied", async () => {
    const missing = await call("POST", "/api/v1/processes", {});
    assert.equal(missing.status, 400);
    assert.equal(missing.json.code, "INVALID_REQUEST");
    assert.equal(missing.json.message, "body.command is required");
    const extra = await call("POST", "/api/v1/processes", { command: "true", nope: 1 });
    assert.equal(extra.json.message, "body.nope is not a known field");
    const typed = await call("POST", "/api/v1/processes", { command: "true", args: [1] });
    assert.equal(typed.json.message, "body.args[0] must be string");
    const started = await call("POST", "/api/v1/processes", { command: "true" });
    assert.equal(started.status, 201, started.text);
    // stdin_mode defaults to closed: the process has no writable stdin.
    assert.equal(started.json.stdin_writable, false);
  });

  test("coerces path and query values, and names what is wrong", async () => {
    const bad = await call("GET", "/api/v1/processes/abc");
    assert.equal(bad.status, 400);
    assert.match(bad.json.message, /^path\.pid /);
    assert.equal((await call("GET", "/api/v1/processes/4000000")).json.code, "PROCESS_NOT_FOUND");
    const query = await call("GET", "/api/v1/logs?tail=abc");
    assert.equal(query.status, 400);
    assert.equal(query.json.code, "INVALID_QUERY_PARAMS");
    assert.equal((await call("GET", "/api/v1/logs?tail=5")).status, 200);
  });

  test("runs a process to its end", async () => {
    const run = await call("POST", "/api/v1/processes/run", { command: "true" });
    assert.equal(run.status, 200);
    assert.match(run.text, /"exit_code":0/);
  });
});
