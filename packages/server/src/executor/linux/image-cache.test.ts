import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Client, type Sandbox } from "@svc/sdk";
import { startTestServer, type TestServer } from "../../testing.ts";
import { acquireFileLock, type FileLock } from "./file-lock.ts";
import { defaultImageDir } from "./image.ts";
import {
  missingPrerequisite,
  REPO_ROOT,
  removeLeftovers,
  SANDBOX_TOOLS,
  testImageRootfs,
} from "./test-support.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);

/** The first sandbox of a machine may wait for the default image build (1–2 minutes, more under load). */
const FIRST_START_MS = 400_000;
const CLI_MAIN = join(REPO_ROOT, "packages", "cli", "src", "main.ts");

/** Whether a data directory holds a default image of its own. */
async function ownDefaultImage(dataDir: string): Promise<boolean> {
  const entries = await readdir(join(dataDir, "images")).catch(() => [] as string[]);
  return entries.some((name) => name.startsWith("default-"));
}

/**
 * Issue 30, items 4 and 5: the built-in image is built once per machine, in a cache keyed by its recipe that two
 * servers share safely; a start waiting for it says `building_image`, and `svc sandbox create` says so.
 * "Another server building" is this test holding the cache's build lock; the build it then finishes is the
 * tests' cached image, linked into the cache.
 */
describe("the built-in image: once per machine, with progress while it builds", { skip }, () => {
  const servers: TestServer[] = [];
  const sandboxes: Sandbox[] = [];
  let cache: string | undefined;
  let lock: FileLock | null = null;

  after(async () => {
    await lock?.release();
    for (const sandbox of sandboxes) await sandbox.delete().catch(() => undefined);
    for (const server of servers) {
      await removeLeftovers(server.dataDir);
      await server.stop();
    }
    if (cache) await rm(cache, { recursive: true, force: true });
  });

  test("a server waits for another's build, saying building_image; a second server reuses the image", {
    timeout: FIRST_START_MS + 300_000,
  }, async () => {
    // The image the "other server" will have built (the tests' cache; built now if this machine has none).
    const built = dirname(await testImageRootfs());
    cache = await mkdtemp(join(tmpdir(), "svc-image-cache-"));
    const finalDir = defaultImageDir(cache);
    await mkdir(dirname(finalDir), { recursive: true });
    const lockFile = join(dirname(finalDir), `.${finalDir.split("/").at(-1)}.lock`);
    lock = await acquireFileLock(lockFile, { wait: false });
    assert.ok(lock, "the cache's build lock is free");

    const first = await startTestServer({ executor: "local", imageCacheDir: cache });
    servers.push(first);
    const client = new Client({ apiKey: first.apiKey, baseUrl: first.url });
    const sandbox = await client.sandboxes.create({ resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } });
    sandboxes.push(sandbox);
    const cli = spawn(
      process.execPath,
      [CLI_MAIN, "sandbox", "create", "--cpus", "0.5", "--memory", "256", "--disk", "256", "--json"],
      {
        env: { PATH: process.env.PATH ?? "", SVC_API_URL: first.url, SERVICE_API_KEY: first.apiKey },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let cliOut = "";
    let cliErr = "";
    cli.stdout.on("data", (chunk) => {
      cliOut += chunk;
    });
    cli.stderr.on("data", (chunk) => {
      cliErr += chunk;
    });
    const cliExit = new Promise<number | null>((resolve) => cli.once("close", resolve));

    const waitFrom = Date.now();
    let record = await sandbox.refresh();
    while (record.pending_reason !== "building_image" && Date.now() - waitFrom < 120_000) {
      await sleep(200);
      record = await sandbox.refresh();
    }
    assert.equal(record.status, "pending");
    assert.equal(record.pending_reason, "building_image");
    while (!cliErr.includes("building the built-in sandbox image") && Date.now() - waitFrom < 120_000) {
      await sleep(200);
    }
    assert.match(cliErr, /building the built-in sandbox image/);

    // The other server's build completes (renamed into place) and its lock goes.
    await symlink(built, finalDir);
    await lock?.release();
    lock = null;
    await sandbox.waitUntilRunning({ timeoutMs: 120_000 });
    assert.equal(await cliExit, 0, cliErr);
    const cliRecord = JSON.parse(cliOut) as { id: string; status: string };
    assert.equal(cliRecord.status, "running");
    sandboxes.push(await client.sandboxes.get(cliRecord.id));
    assert.match(cliErr, /image ready after \d+ s/);

    // A second server on the machine: no build, no wait.
    const second = await startTestServer({ executor: "local", imageCacheDir: cache });
    servers.push(second);
    const client2 = new Client({ apiKey: second.apiKey, baseUrl: second.url });
    const other = await client2.sandboxes.create({ resources: { cpus: 0.5, memory_mb: 256, disk_mb: 256 } });
    sandboxes.push(other);
    const reasons = new Set<string>();
    const deadline = Date.now() + 120_000;
    for (;;) {
      const now = await other.refresh();
      if (now.pending_reason) reasons.add(now.pending_reason);
      if (now.status !== "pending" || Date.now() > deadline) {
        assert.equal(now.status, "running", `${now.termination_reason} ${now.error_details}`);
        break;
      }
      await sleep(100);
    }
    assert.equal(reasons.has("building_image"), false, [...reasons].join(", "));
    assert.equal(await ownDefaultImage(first.dataDir), false);
    assert.equal(await ownDefaultImage(second.dataDir), false);
    assert.ok(existsSync(join(finalDir, "rootfs", "bin")));
  });
});
