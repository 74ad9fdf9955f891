import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "@svc/daemon";
import { freePort, startTestServer, type TestServer } from "@svc/server";
import { startHostSandbox } from "@svc/server/host-sandbox";
import { missingPrerequisite } from "@svc/server/test-support";
import { runSvc } from "../svc.testing.ts";

// The sandbox's sshd runs as root on this host.
const skip = missingPrerequisite(["ssh", "/usr/sbin/sshd"]);

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
    const host = await startHostSandbox(server, {
      daemon: { sshHostKeyPath: path.join(dir, "host_key"), sshRunDir: path.join(dir, "run"), sshdPort },
    });
    daemon = host.daemon;
    sandboxId = host.id;
  });
  after(async () => {
    await server?.stop();
    await daemon?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("runs a command in the sandbox with the API key as password, exiting with its code", async () => {
    const { code, stdout, stderr } = await runSvc(
      [
        ...["ssh", sandboxId, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"],
        ...["-o", "LogLevel=ERROR", "--", "echo via-cli; exit 6"],
      ],
      {
        SVC_API_URL: server.url,
        SERVICE_API_KEY: server.apiKey,
        SVC_SSH_PORT: String(server.sshPort),
        SVC_DATA_DIR: "/nonexistent",
      },
    );
    assert.equal(stdout, "via-cli\n", stderr);
    assert.equal(code, 6);
  });
});
