/**
 * `svc template build` against a real server with real sandboxes: the log streamed as the build runs, a
 * Dockerfile outside the context, build arguments, the exit status of a failed build, the cache on a rebuild.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { missingPrerequisite, SANDBOX_TOOLS } from "@svc/server/test-support";
import { runSvc } from "../svc.testing.ts";

const skip = missingPrerequisite([...SANDBOX_TOOLS, "tar"]);

/** The first sandbox of a machine may wait for the default image build; a loaded machine is slow. */
const TIMEOUT_MS = 600_000;

describe("svc template build", { skip }, () => {
  let server: TestServer;
  let dir: string;
  let env: Record<string, string>;

  before(async () => {
    server = await startTestServer({ executor: "local" });
    env = { SVC_API_URL: server.url, SERVICE_API_KEY: server.apiKey, SVC_DATA_DIR: "/nonexistent" };
    dir = await mkdtemp(path.join(tmpdir(), "svc-cli-build-"));
    await mkdir(path.join(dir, "ctx"));
    await writeFile(path.join(dir, "ctx", "greeting.txt"), "hi from the context\n");
    await writeFile(path.join(dir, "ctx", "ignored.txt"), "left out\n");
    await writeFile(path.join(dir, "ctx", ".dockerignore"), "# not sent\nignored.txt\n");
    await writeFile(
      path.join(dir, "build.Dockerfile"),
      "FROM default\nARG WHO=nobody\nCOPY . /opt/ctx/\nRUN cat /opt/ctx/greeting.txt && ls -A /opt/ctx && echo built for $WHO\n",
    );
    await writeFile(path.join(dir, "ctx", "Dockerfile"), "FROM default\nRUN echo failing now; exit 7\n");
  });
  after(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test("builds with -f outside the context and --build-arg, streaming the log; a rebuild is cached", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const built = await runSvc(
      ["template", "build", "cli-built", "-f", "build.Dockerfile", "ctx", "--build-arg", "WHO=cli"],
      env,
      { cwd: dir },
    );
    assert.equal(built.code, 0, built.stderr + built.stdout);
    assert.match(built.stdout, /Step 1\/4 : FROM default/);
    assert.match(built.stdout, /^hi from the context$/m);
    assert.match(built.stdout, /^built for cli$/m);
    assert.match(built.stdout, /^greeting\.txt$/m);
    assert.doesNotMatch(built.stdout, /^ignored\.txt$/m, ".dockerignore leaves it out");
    assert.match(built.stdout, /built template cli-built \(tmpl_\w+\), 0\/3 steps cached/);

    const again = await runSvc(
      ["template", "build", "cli-again", "-f", "build.Dockerfile", "ctx", "--build-arg", "WHO=cli", "--json"],
      env,
      { cwd: dir },
    );
    assert.equal(again.code, 0, again.stderr);
    const record = JSON.parse(again.stdout);
    assert.equal(record.status, "succeeded");
    assert.equal(record.cached_steps, 3);
  });

  test("a failed build exits 1 with its error; a missing Dockerfile is a usage error", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const failed = await runSvc(["template", "build", "cli-failing", "ctx"], env, { cwd: dir });
    assert.equal(failed.code, 1);
    assert.match(failed.stdout, /^failing now$/m);
    assert.match(
      failed.stderr,
      /build of cli-failing failed: line 2: RUN echo failing now; exit 7 ended with 7/,
    );
    const missing = await runSvc(["template", "build", "x", "-f", "nope", "ctx"], env, { cwd: dir });
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /no Dockerfile at/);
  });
});
