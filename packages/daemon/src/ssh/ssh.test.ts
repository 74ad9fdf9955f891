import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "../daemon.ts";
import { type DaemonTestClient, isProcessGone, startTestDaemon } from "../testing.ts";
import { publicKeyFingerprint } from "./host-key.ts";

export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The Debian OpenSSH client, with no known_hosts and only the given key. */
function ssh(
  port: number,
  user: string,
  key: string,
  command: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      "ssh",
      [
        ...["-p", String(port), "-i", key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes"],
        ...["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"],
        `${user}@127.0.0.1`,
        command,
      ],
      { timeout: 20_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const sshdMissing = (() => {
  try {
    execFileSync("/usr/sbin/sshd", ["-V"], { stdio: "ignore" });
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
})();
const notRoot = process.getuid?.() !== 0;

describe("SSH daemon lifecycle", {
  skip: sshdMissing || notRoot ? "needs root and openssh-server" : false,
}, () => {
  let dir: string;
  let daemon: RunningDaemon;
  let client: DaemonTestClient;
  let port: number;
  let proxyKey: string;
  let otherKey: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-ssh-test-"));
    await chmod(dir, 0o755); // an unprivileged sshd reads its config below it
    port = await freePort();
    for (const name of ["proxy", "other"]) {
      execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, name)]);
    }
    proxyKey = join(dir, "proxy");
    otherKey = join(dir, "other");
    ({ daemon, client } = await startTestDaemon({
      sshHostKeyPath: join(dir, "state", "ssh_host_ed25519_key"),
      sshRunDir: join(dir, "run"),
      sshdPort: port,
    }));
  });
  after(async () => {
    await daemon?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const enable = async (backendUser?: string) =>
    client.request("POST", "/api/v1/ssh/enable", {
      json: {
        proxy_pubkey: (await readFile(`${proxyKey}.pub`, "utf8")).trim(),
        ...(backendUser ? { backend_user: backendUser } : {}),
      },
    });

  test("status before any enable: disabled, with a host key fingerprint", async () => {
    const status = await client.request("GET", "/api/v1/ssh/status");
    assert.equal(status.status, 200);
    assert.equal(status.json.enabled, false);
    assert.equal(status.json.pid, null);
    assert.match(status.json.host_key_fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
    const pub = await readFile(join(dir, "state", "ssh_host_ed25519_key.pub"), "utf8");
    assert.equal(status.json.host_key_fingerprint, publicKeyFingerprint(pub));
    const keygen = execFileSync("ssh-keygen", ["-lf", join(dir, "state", "ssh_host_ed25519_key.pub")], {
      encoding: "utf8",
    });
    assert.equal(keygen.split(" ")[1], status.json.host_key_fingerprint);
  });

  test("routes need forwarded auth and a valid body", async () => {
    assert.equal((await client.request("GET", "/api/v1/ssh/status", { auth: false })).status, 401);
    assert.equal((await client.request("POST", "/api/v1/ssh/disable", { auth: "bad" })).status, 401);
    const missing = await client.request("POST", "/api/v1/ssh/enable", { json: {} });
    assert.equal(missing.status, 400);
    const badUser = await client.request("POST", "/api/v1/ssh/enable", {
      json: { proxy_pubkey: "ssh-ed25519 AAAA x", backend_user: "no-such-user-here" },
    });
    assert.equal(badUser.status, 400);
    assert.equal(badUser.json.code, "INVALID_USER");
  });

  test("enable starts sshd for the proxy key only; disable stops it; the host key stays", async () => {
    const first = await enable();
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.enabled, true);
    assert.ok(Number.isInteger(first.json.pid));
    const again = await enable();
    assert.equal(again.json.pid, first.json.pid, "the same key and user keep the running sshd");

    const user = execFileSync("id", ["-un"], { encoding: "utf8" }).trim();
    const hi = await ssh(port, user, proxyKey, "echo hi; exit 7");
    assert.equal(hi.stdout, "hi\n", hi.stderr);
    assert.equal(hi.code, 7);
    const refused = await ssh(port, user, otherKey, "echo hi");
    assert.equal(refused.code, 255);
    assert.match(refused.stderr, /Permission denied/);

    const disabled = await client.request("POST", "/api/v1/ssh/disable");
    assert.deepEqual(disabled.json, {
      enabled: false,
      pid: null,
      host_key_fingerprint: first.json.host_key_fingerprint,
    });
    assert.ok(await isProcessGone(first.json.pid));
    assert.equal((await ssh(port, user, proxyKey, "true")).code, 255);

    const second = await enable();
    assert.equal(second.json.enabled, true);
    assert.notEqual(second.json.pid, first.json.pid);
    assert.equal(second.json.host_key_fingerprint, first.json.host_key_fingerprint);
    const status = await client.request("GET", "/api/v1/ssh/status");
    assert.deepEqual(status.json, second.json);
  });

  test("for a user other than root, sshd runs unprivileged as that user", async () => {
    // daemon's shell is nologin: its message proves the key login worked as that user.
    const enabled = await enable("daemon");
    assert.equal(enabled.status, 200, enabled.text);
    const status = await readFile(`/proc/${enabled.json.pid}/status`, "utf8");
    assert.match(status, /^Uid:\s+1\s+1/m);
    const login = await ssh(port, "daemon", proxyKey, "echo hi");
    assert.match(login.stdout + login.stderr, /not available/);
    assert.equal((await ssh(port, "root", proxyKey, "echo hi")).code, 255);
    await client.request("POST", "/api/v1/ssh/disable");
    assert.ok(await isProcessGone(enabled.json.pid));
  });

  test("closing the daemon stops sshd", async () => {
    const { daemon: other, client: otherClient } = await startTestDaemon({
      sshHostKeyPath: join(dir, "state2", "key"),
      sshRunDir: join(dir, "run2"),
      sshdPort: await freePort(),
    });
    const enabled = await otherClient.request("POST", "/api/v1/ssh/enable", {
      json: { proxy_pubkey: (await readFile(`${proxyKey}.pub`, "utf8")).trim() },
    });
    assert.equal(enabled.json.enabled, true);
    await other.close();
    assert.ok(await isProcessGone(enabled.json.pid));
  });
});
