import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { runSvc } from "./svc.testing.ts";

const main = path.join(import.meta.dirname, "main.ts");

describe("svc CLI against a real server", () => {
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    server = await startTestServer();
    env = { SVC_API_URL: server.url, SVC_DATA_DIR: "/nonexistent" };
  });
  after(() => server.stop());

  test("whoami with SERVICE_API_KEY, and with the local data directory's key", async () => {
    const withEnv = await runSvc(["whoami", "--json"], { ...env, SERVICE_API_KEY: server.apiKey });
    assert.equal(withEnv.code, 0, withEnv.stderr);
    const me = JSON.parse(withEnv.stdout);
    assert.match(me.projectId, /^proj_/);
    const withFile = await runSvc(["whoami", "--json"], {
      SVC_API_URL: server.url,
      SVC_DATA_DIR: server.dataDir,
    });
    assert.equal(withFile.code, 0, withFile.stderr);
    assert.deepEqual(JSON.parse(withFile.stdout), me);
  });

  test("keys create, list and delete; a deleted key stops working", async () => {
    const admin = { ...env, SVC_ADMIN_TOKEN: server.adminToken };
    const created = await runSvc(["keys", "create", "--name", "ci", "--json"], admin);
    assert.equal(created.code, 0, created.stderr);
    const key = JSON.parse(created.stdout);
    assert.match(key.key, /^svc_apiKey_/);
    assert.equal((await runSvc(["whoami"], { ...env, SERVICE_API_KEY: key.key })).code, 0);

    const listed = await runSvc(["keys", "list"], admin);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.includes(key.id));
    assert.ok(!listed.stdout.includes(key.key), "list must never show key text");

    assert.equal((await runSvc(["keys", "delete", key.id], admin)).code, 0);
    const refused = await runSvc(["whoami"], { ...env, SERVICE_API_KEY: key.key });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /UNAUTHORIZED/);
    const again = await runSvc(["keys", "delete", key.id], admin);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /KEY_NOT_FOUND/);
  });

  test("admin commands refuse a project key", async () => {
    const run = await runSvc(["keys", "list"], { ...env, SVC_ADMIN_TOKEN: server.apiKey });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /UNAUTHORIZED/);
  });

  test("fs: create, put, cat, ls, push a directory with a message, snapshots, delete", async () => {
    const keyed = { ...env, SERVICE_API_KEY: server.apiKey };
    const dir = await mkdtemp(path.join(tmpdir(), "svc-cli-fs-"));
    try {
      assert.equal(
        (await runSvc(["fs", "create", "cli-fs", "--description", "from the CLI"], keyed)).code,
        0,
      );
      await writeFile(path.join(dir, "local.txt"), "put from the CLI\n");
      const put = await runSvc(["fs", "put", "cli-fs", "docs/a.txt", path.join(dir, "local.txt")], keyed);
      assert.equal(put.code, 0, put.stderr);
      assert.equal((await runSvc(["fs", "cat", "cli-fs", "docs/a.txt"], keyed)).stdout, "put from the CLI\n");
      const ls = await runSvc(["fs", "ls", "cli-fs", "--json"], keyed);
      assert.deepEqual(
        JSON.parse(ls.stdout).map((e: { path: string }) => e.path),
        ["docs", "docs/a.txt"],
      );
      const tree = path.join(dir, "tree");
      await mkdir(path.join(tree, "sub"), { recursive: true });
      await writeFile(path.join(tree, "sub", "b.txt"), "pushed\n");
      const pushed = await runSvc(["fs", "push", "cli-fs", tree, "--message", "v1", "--json"], keyed);
      assert.equal(pushed.code, 0, pushed.stderr);
      const snapshotId = JSON.parse(pushed.stdout).snapshot_id;
      assert.match(snapshotId, /^fsnap_/);
      assert.equal((await runSvc(["fs", "cat", "cli-fs", "sub/b.txt"], keyed)).stdout, "pushed\n");
      assert.equal(
        (await runSvc(["fs", "cat", "cli-fs", "docs/a.txt"], keyed)).code,
        1,
        "the push replaced the tree",
      );
      const snapshots = await runSvc(["fs", "snapshots", "cli-fs"], keyed);
      assert.ok(snapshots.stdout.includes(snapshotId));
      assert.match((await runSvc(["fs", "list"], keyed)).stdout, /cli-fs/);
      assert.equal((await runSvc(["fs", "delete", "cli-fs"], keyed)).code, 0);
      assert.doesNotMatch((await runSvc(["fs", "list"], keyed)).stdout, /cli-fs/);
      assert.equal((await runSvc(["fs", "bogus"], keyed)).code, 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("usage errors exit 2", async () => {
    assert.equal((await runSvc(["no-such-command"], env)).code, 2);
    assert.equal((await runSvc(["keys", "create", "--bogus"], env)).code, 2);
    assert.equal((await runSvc(["server", "--port", "notanumber"], env)).code, 2);
  });
});

test("svc server: first start prints the key once, writes 0600 files, serves, and stops on SIGTERM", async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), "svc-cli-"));
  try {
    const start = () =>
      new Promise<{ output: string; exit: Promise<number | null>; url: string; stop: () => void }>(
        (resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              main,
              "server",
              "--port",
              "0",
              "--proxy-port",
              "0",
              "--executor",
              "none",
              "--log-level",
              "silent",
            ],
            {
              // Ports 0: a server already on this machine (the SSH gateway's 2222, the relay's 9510) must not stop it.
              env: {
                PATH: process.env.PATH ?? "",
                SVC_DATA_DIR: dataDir,
                SVC_SSH_PORT: "0",
                SVC_RELAY_PORT: "0",
              },
              stdio: ["ignore", "pipe", "inherit"],
            },
          );
          const exit = new Promise<number | null>((r) => child.on("close", r));
          let output = "";
          child.stdout.on("data", (d) => {
            output += d;
            const url = /control API on (http:\/\/\S+)/.exec(output)?.[1];
            if (url) setTimeout(() => resolve({ output, exit, url, stop: () => child.kill("SIGTERM") }), 100);
          });
          child.on("error", reject);
        },
      );
    const first = await start();
    const key = (await readFile(path.join(dataDir, "api-key"), "utf8")).trim();
    assert.ok(first.output.includes(key), "the first start prints the key");
    assert.equal((await stat(path.join(dataDir, "api-key"))).mode & 0o777, 0o600);
    assert.equal((await stat(path.join(dataDir, "admin-token"))).mode & 0o777, 0o600);
    const response = await fetch(`${first.url}/platform/v1/keys/introspect`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(response.status, 200);
    first.stop();
    assert.equal(await first.exit, 0);

    const second = await start();
    assert.ok(!second.output.includes("svc_apiKey_"), "a later start prints no key");
    second.stop();
    assert.equal(await second.exit, 0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
