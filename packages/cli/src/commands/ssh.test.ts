import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { type RunningDaemon, startDaemon } from "@svc/daemon";
import { Client } from "@svc/sdk";
import { startTestServer, type TestServer } from "@svc/server";

const main = path.join(import.meta.dirname, "..", "main.ts");

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const skip = (() => {
  if (process.getuid?.() !== 0) return "needs root (the sandbox's sshd runs as root on this host)";
  try {
    execFileSync("sh", ["-c", "command -v ssh && test -x /usr/sbin/sshd"], { stdio: "ignore" });
    return false;
  } catch {
    return "needs openssh-client and openssh-server";
  }
})();

/** `svc ssh` against a real server's gateway and a daemon on this host standing in for the sandbox. */
describe("svc ssh", { skip }, () => {
  let dir: string;
  let server: TestServer;
  let daemon: RunningDaemon;
  let sandboxId: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "svc-cli-ssh-"));
    const sshdPort = await freePort();
    server = await startTestServer(
      { sshPort: await freePort() },
      { ssh: { backendUser: "root", sandboxSshdPort: sshdPort } },
    );
    const sandbox = await new Client({ apiKey: server.apiKey, baseUrl: server.url }).sandboxes.create({});
    sandboxId = sandbox.id;
    daemon = await startDaemon({
      host: "127.0.0.1",
      port: 0,
      authSecret: server.sandboxes.secretOf(sandbox.id),
      sandboxId: sandbox.id,
      logLevel: "silent",
      log: () => {},
      sshHostKeyPath: path.join(dir, "host_key"),
      sshRunDir: path.join(dir, "run"),
      sshdPort,
    });
    await server.sandboxes.repo.transition(sandbox.id, ["pending"], {
      status: "running",
      executorId: "host-test",
      containerId: "host-daemon",
      address: daemon.url,
      startedAt: Date.now(),
    });
  });
  after(async () => {
    await server?.stop();
    await daemon?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("runs a command in the sandbox with the API key as password, exiting with its code", async () => {
    const child = spawn(
      process.execPath,
      [
        ...[main, "ssh", sandboxId, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"],
        ...["-o", "LogLevel=ERROR", "--", "echo via-cli; exit 6"],
      ],
      {
        env: {
          PATH: process.env.PATH ?? "",
          SVC_API_URL: server.url,
          SERVICE_API_KEY: server.apiKey,
          SVC_SSH_PORT: String(server.sshPort),
          SVC_DATA_DIR: "/nonexistent",
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    assert.equal(stdout, "via-cli\n", stderr);
    assert.equal(code, 6);
  });
});
