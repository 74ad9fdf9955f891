import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { type Cluster, cleanupsAfterAll, clusterSkip, createCluster } from "./cluster.testing.ts";

/**
 * A DELETE /images/{name} served by one host of several sweeps every host's image trees: the uploaded image's
 * tree lives on the executor of the host that took the upload, and goes when another host serves the delete
 * (at that host's next look at the request, seconds later), not at its hourly sweep. No sandbox is started.
 */

const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
const skip =
  clusterSkip("network namespaces and an executor") ||
  (!["umoci", "skopeo"].every(
    (tool) =>
      execFileSync("sh", ["-c", `command -v ${tool} || true`])
        .toString()
        .trim() !== "",
  )
    ? "umoci and skopeo are needed (scripts/install.sh test)"
    : false);
if (process.env.CI === "true" && skip)
  test("image delete on several hosts", () => assert.fail(`cannot run: ${skip}`));

const cleanups = cleanupsAfterAll();

/** An OCI archive (a tar of an image layout) of one small layer, made with umoci. */
function ociArchive(dir: string): Buffer {
  const layout = path.join(dir, "layout");
  const bundle = path.join(dir, "bundle");
  const run = (args: string[]) => execFileSync("umoci", args, { stdio: ["ignore", "pipe", "pipe"] });
  run(["init", "--layout", layout]);
  run(["new", "--image", `${layout}:v1`]);
  run(["unpack", "--image", `${layout}:v1`, bundle]);
  mkdirSync(path.join(bundle, "rootfs", "srv"), { recursive: true });
  writeFileSync(path.join(bundle, "rootfs", "srv", "marker.txt"), "uploaded on b\n");
  run(["repack", "--image", `${layout}:v1`, bundle]);
  return execFileSync("tar", ["-C", layout, "-c", "."], { maxBuffer: 64 * 1024 * 1024 });
}

test("an uploaded image deleted through one host leaves no tree on the host that took it", {
  skip,
  timeout: 300_000,
}, async () => {
  const cluster: Cluster = await createCluster({ databaseUrl: databaseUrl as string, names: ["a", "b"] });
  cleanups.push(() => cluster.dispose());
  const [a, b] = cluster.hosts;
  const scratch = mkdtempSync(path.join(tmpdir(), "svc-image-delete-test-"));
  cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
  // The first host migrates the schema and bootstraps the project; the other joins it.
  await cluster.start(a, "api,proxy,scheduler,executor", { imageGraceSecs: 60 });
  await cluster.start(b, "api,executor", { imageGraceSecs: 60 });
  const apiKey = readFileSync(path.join(a.dataDir, "api-key"), "utf8").trim();
  const call = (url: string, method: string, route: string, body?: Buffer) =>
    fetch(`${url}${route}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body ? { "content-type": "application/octet-stream" } : {}),
      },
      body,
    });

  // Uploaded through b: b's executor imports it.
  const uploaded = await call(b.url, "PUT", "/images/marker", ociArchive(scratch));
  const image = (await uploaded.json()) as { digest: string };
  assert.equal(uploaded.status, 200, JSON.stringify(image));
  const trees = path.join(b.dataDir, "oci-images", "rootfs");
  const hex = image.digest.replace(/^sha256:/, "");
  assert.deepEqual(readdirSync(trees), [hex], "b holds the uploaded image's tree");
  // Its last use dated back past the grace period, so that only its row keeps it.
  const long = new Date(Date.now() - 3_600_000);
  utimesSync(path.join(trees, hex, "image.json"), long, long);

  // Deleted through a: a sweeps at once (it holds nothing), b at its next look at the request.
  const deleted = await call(a.url, "DELETE", "/images/marker");
  assert.equal(deleted.status, 204, await deleted.text());
  const deadline = Date.now() + 120_000;
  while (existsSync(path.join(trees, hex)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.deepEqual(readdirSync(trees), [], "b removed the deleted image's tree");
  for (const host of [a, b]) await cluster.kill(host, "SIGTERM");
});
