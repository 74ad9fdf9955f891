import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { DaemonTestClient } from "./testing.ts";

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));

/** Runs `svc-daemon` with `args`; resolves with its listening URL, or its exit code when it stops first. */
function launch(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MAIN, "--host", "127.0.0.1", "--port", "0", ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  const listening = new Promise<string | undefined>((done) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) done(match[1]);
    });
    void exited.then(() => done(undefined));
  });
  return { child, exited, listening, stderr: () => stderr };
}

test("svc-daemon serves with a secret from the environment and stops on SIGTERM", async () => {
  const daemon = launch(["--sandbox-id", "sbx-main"], { SVC_DAEMON_AUTH_SECRET: "from-env" });
  const url = await daemon.listening;
  assert.ok(url, daemon.stderr());
  const client = new DaemonTestClient(url, "from-env", "sbx-main");
  assert.deepEqual((await client.request("GET", "/api/v1/health", { auth: false })).json, { healthy: true });
  assert.equal((await client.request("GET", "/api/v1/info")).status, 200);
  assert.equal((await client.request("GET", "/api/v1/info", { auth: false })).status, 401);
  const run = await client.run({ command: "sh", args: ["-c", "env"] });
  assert.ok(
    !run.lines.some((l: { line: string }) => l.line.includes("from-env")),
    "children never see the secret",
  );
  const started = await client.request("POST", "/api/v1/processes", {
    json: { command: "sleep", args: ["100"] },
  });
  daemon.child.kill("SIGTERM");
  assert.equal(await daemon.exited, 0);
  // Shutdown killed the process it started.
  assert.throws(() => process.kill(started.json.pid, 0));
});

test("svc-daemon reads --auth-secret-file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-main-"));
  try {
    writeFileSync(join(dir, "secret"), "from-file\n");
    const daemon = launch(["--auth-secret-file", join(dir, "secret")]);
    const url = await daemon.listening;
    assert.ok(url, daemon.stderr());
    const client = new DaemonTestClient(url, "from-file", "local");
    assert.equal((await client.request("GET", "/api/v1/info")).status, 200);
    daemon.child.kill("SIGTERM");
    assert.equal(await daemon.exited, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("svc-daemon refuses to start without a secret or with bad flags", async () => {
  for (const args of [[], ["--auth-secret", "s", "--bogus"], ["--auth-secret", "s", "--port", "99999"]]) {
    const daemon = launch(args);
    assert.equal(await daemon.exited, 2, daemon.stderr());
    assert.match(daemon.stderr(), /usage: svc-daemon/);
  }
});
