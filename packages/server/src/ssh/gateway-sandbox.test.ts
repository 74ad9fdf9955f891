import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Client, type Sandbox } from "@svc/sdk";
import { missingPrerequisite, removeLeftovers, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import { freePort, startTestServer, type TestServer } from "../testing.ts";

const skip = missingPrerequisite([...SANDBOX_TOOLS, "ssh", "scp", "sshpass"]);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes). */
const FIRST_START_MS = 300_000;

/**
 * The whole path in a real sandbox: the gateway enables the image's sshd, which runs unprivileged as svc-user
 * under the sandbox's seccomp filter and capabilities, and is reached through the daemon's TCP tunnel.
 */
describe("SSH gateway into a sandbox of the local executor", { skip }, () => {
  let server: TestServer;
  let sandbox: Sandbox;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-ssh-sandbox-test-"));
    server = await startTestServer({ executor: "local", sshPort: await freePort() });
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    sandbox = await client.sandboxes.create({ resources: { cpus: 1, memory_mb: 512, disk_mb: 1024 } });
    await sandbox.waitUntilRunning({ timeoutMs: FIRST_START_MS });
  });
  after(async () => {
    await sandbox?.delete().catch(() => undefined);
    if (server) {
      await removeLeftovers(server.dataDir);
      await server.stop();
    }
    await rm(dir, { recursive: true, force: true });
  });

  function run(tool: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        "sshpass",
        [
          ...["-e", tool, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"],
          ...["-o", "LogLevel=ERROR", "-o", "PubkeyAuthentication=no", ...args],
        ],
        { env: { ...process.env, SSHPASS: server.apiKey }, timeout: 60_000 },
        (error, stdout, stderr) => {
          resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
        },
      );
    });
  }

  test("exec runs as svc-user; scp in and out; status and a stable fingerprint", {
    timeout: 120_000,
  }, async () => {
    const port = String(server.sshPort);
    const id = await run("ssh", ["-p", port, `${sandbox.id}@127.0.0.1`, "echo hi; id -un; exit 4"]);
    assert.equal(id.stdout, "hi\nsvc-user\n", id.stderr);
    assert.equal(id.code, 4);

    const local = join(dir, "in.txt");
    await writeFile(local, "into the sandbox\n");
    const up = await run("scp", ["-P", port, local, `${sandbox.id}@127.0.0.1:/home/svc-user/in.txt`]);
    assert.equal(up.code, 0, up.stderr);
    const down = await run("scp", [
      "-P",
      port,
      `${sandbox.id}@127.0.0.1:/home/svc-user/in.txt`,
      join(dir, "out.txt"),
    ]);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(await readFile(join(dir, "out.txt"), "utf8"), "into the sandbox\n");

    const runtime = server.sandboxes;
    const row = await runtime.repo.get(sandbox.id);
    assert.ok(row?.address);
    const { signForwardedAuth, FORWARDED_AUTH_HEADER } = await import("@svc/contract");
    const call = async (method: string, path: string) => {
      const response = await fetch(new URL(path, row.address as string), {
        method,
        headers: {
          [FORWARDED_AUTH_HEADER]: signForwardedAuth({
            secret: runtime.secretOf(sandbox.id),
            sandboxId: sandbox.id,
            method,
            pathAndQuery: path,
          }),
        },
      });
      return (await response.json()) as {
        enabled: boolean;
        pid: number | null;
        host_key_fingerprint: string;
      };
    };
    const enabled = await call("GET", "/api/v1/ssh/status");
    assert.equal(enabled.enabled, true);
    const disabled = await call("POST", "/api/v1/ssh/disable");
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.host_key_fingerprint, enabled.host_key_fingerprint);
    // The gateway enables it again on the next login.
    const again = await run("ssh", ["-p", port, `${sandbox.id}@127.0.0.1`, "echo again"]);
    assert.equal(again.stdout, "again\n", again.stderr);
    const reenabled = await call("GET", "/api/v1/ssh/status");
    assert.equal(reenabled.enabled, true);
    assert.equal(reenabled.host_key_fingerprint, enabled.host_key_fingerprint);
  });
});
