import assert from "node:assert/strict";
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "@svc/daemon";
import { Client, type Sandbox } from "@svc/sdk";
import { missingPrerequisite } from "../executor/linux/test-support.ts";
import { startHostSandbox } from "../host-sandbox.testing.ts";
import { freePort, startTestServer, type TestServer } from "../testing.ts";

const skip = missingPrerequisite(["/usr/sbin/sshd", "ssh", "scp", "sftp", "sshpass"]);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The SSH gateway with the Debian OpenSSH client, against a real daemon running on this host (no executor): the
 * sandbox row points at the daemon as the executor would record it. Everything else is the real path: API key
 * as password → project → sandbox → signed enable → sshd → relayed channels.
 */
describe("SSH gateway with the OpenSSH client", { skip }, () => {
  let dir: string;
  let server: TestServer;
  let daemon: RunningDaemon;
  let sandbox: Sandbox;
  let sshPort: number;
  let otherKey: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-ssh-gateway-test-"));
    const sshdPort = await freePort();
    server = await startTestServer(
      { sshPort: await freePort() },
      { ssh: { backendUser: "root", sandboxSshdPort: sshdPort } },
    );
    sshPort = server.sshPort as number;
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    const host = await startHostSandbox(server, {
      name: "ssh-target",
      daemon: {
        sshHostKeyPath: join(dir, "state", "ssh_host_ed25519_key"),
        sshRunDir: join(dir, "run"),
        sshdPort,
      },
    });
    daemon = host.daemon;
    sandbox = await client.sandboxes.get(host.id);
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "ssh-other");
    otherKey = (await server.store.apiKeys.create({ projectId: other.id })).key;
  });
  after(async () => {
    await server?.stop();
    await daemon?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const common = (password: string) => [
    ...["-e", "SSHPASS"],
    ...["-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"],
    ...["-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password,keyboard-interactive"],
    ...["-o", "NumberOfPasswordPrompts=1"],
    password,
  ];

  /** `sshpass -e <tool> …` with the password in SSHPASS. */
  function run(tool: string, args: string[], password = server.apiKey, input?: string): Promise<Run> {
    const [, , ...options] = common(password).slice(0, -1);
    return new Promise((resolve) => {
      const child = execFile(
        "sshpass",
        ["-e", tool, ...options, ...args],
        { env: { ...process.env, SSHPASS: password }, timeout: 30_000 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });
  }
  const ssh = (target: string, command: string, password?: string) =>
    run("ssh", ["-p", String(sshPort), `${target}@127.0.0.1`, command], password);

  test("exec: output and exit status, by id and by name", async () => {
    const hi = await ssh(sandbox.id, "echo hi; echo err >&2; exit 3");
    assert.equal(hi.stdout, "hi\n", hi.stderr);
    assert.match(hi.stderr, /err/);
    assert.equal(hi.code, 3);
    const named = await ssh("ssh-target", "echo $((6*7))");
    assert.equal(named.stdout, "42\n", named.stderr);
    assert.equal(named.code, 0);
  });

  test("the gateway enabled sshd with its own key; the daemon reports it", async () => {
    assert.equal(daemon.sshd.port > 0, true);
    const status = await daemon.sshd.status();
    assert.equal(status.enabled, true);
    assert.match(status.host_key_fingerprint, /^SHA256:/);
  });

  test("stdin is relayed and EOF ends it", async () => {
    const result = await run(
      "ssh",
      ["-p", String(sshPort), `${sandbox.id}@127.0.0.1`, "wc -c"],
      server.apiKey,
      "12345",
    );
    assert.equal(result.stdout.trim(), "5", result.stderr);
  });

  test("a shell with a pty", async () => {
    const result = await run(
      "ssh",
      ["-tt", "-p", String(sshPort), `${sandbox.id}@127.0.0.1`, "tty; echo TERM=$TERM; stty size"],
      server.apiKey,
    );
    assert.match(result.stdout, /\/dev\/pts\/\d+/, result.stderr);
    assert.equal(result.code, 0);
  });

  test("scp a file in and out; sftp ls", async () => {
    const local = join(dir, "local.txt");
    const remoteDir = join(dir, "remote");
    await writeFile(local, "scp contents\n");
    execFileSync("mkdir", ["-p", remoteDir]);
    const up = await run("scp", [
      "-P",
      String(sshPort),
      local,
      `${sandbox.id}@127.0.0.1:${remoteDir}/up.txt`,
    ]);
    assert.equal(up.code, 0, up.stderr);
    assert.equal(await readFile(join(remoteDir, "up.txt"), "utf8"), "scp contents\n");
    const down = await run("scp", [
      "-P",
      String(sshPort),
      `${sandbox.id}@127.0.0.1:${remoteDir}/up.txt`,
      join(dir, "down.txt"),
    ]);
    assert.equal(down.code, 0, down.stderr);
    assert.equal(await readFile(join(dir, "down.txt"), "utf8"), "scp contents\n");
    // Commands on stdin (-b would imply BatchMode, which turns the password prompt off).
    const sftp = await run(
      "sftp",
      ["-P", String(sshPort), `${sandbox.id}@127.0.0.1`],
      server.apiKey,
      `ls ${remoteDir}\nbye\n`,
    );
    assert.equal(sftp.code, 0, sftp.stderr);
    assert.match(sftp.stdout, /up\.txt/);
  });

  test("-L forwards a local port to a TCP server inside the sandbox", async () => {
    const echo = net.createServer((socket) => socket.pipe(socket)).listen(0, "127.0.0.1");
    await new Promise((resolve) => echo.once("listening", resolve));
    const innerPort = (echo.address() as net.AddressInfo).port;
    const localPort = await freePort();
    const [, , ...options] = common(server.apiKey).slice(0, -1);
    const child = spawn(
      "sshpass",
      [
        ...["-e", "ssh", ...options, "-N", "-o", "ExitOnForwardFailure=yes"],
        ...["-L", `${localPort}:127.0.0.1:${innerPort}`, "-p", String(sshPort), `${sandbox.id}@127.0.0.1`],
      ],
      { env: { ...process.env, SSHPASS: server.apiKey }, stdio: "ignore" },
    );
    try {
      let answer = "";
      for (let attempt = 0; attempt < 100 && answer === ""; attempt++) {
        answer = await new Promise<string>((resolve) => {
          const socket = net.connect(localPort, "127.0.0.1");
          let text = "";
          socket.on("connect", () => socket.write("ping through -L"));
          socket.on("data", (data) => {
            text += data;
            if (text === "ping through -L") socket.end();
          });
          socket.on("close", () => resolve(text));
          socket.on("error", () => resolve(""));
        });
        if (answer === "") await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(answer, "ping through -L");
    } finally {
      child.kill();
      echo.close();
    }
  });

  test("a wrong key, another project's key and an unknown sandbox are refused", async () => {
    const wrong = await ssh(sandbox.id, "echo hi", "svc_apiKey_not-a-key");
    assert.equal(wrong.code, 5, wrong.stderr); // sshpass: invalid password
    assert.equal(wrong.stdout, "");
    const other = await ssh(sandbox.id, "echo hi", otherKey);
    assert.equal(other.code, 5, other.stderr);
    assert.equal(other.stdout, "");
    const unknown = await ssh("no-such-sandbox", "echo hi");
    assert.equal(unknown.code, 5, unknown.stderr);
  });

  test("a sandbox that is not running fails the session with a message", async () => {
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    const pending = await client.sandboxes.create({ name: "ssh-pending" });
    const result = await ssh(pending.id, "echo hi");
    assert.equal(result.code, 255);
    assert.match(result.stderr, /is pending/);
  });
});
