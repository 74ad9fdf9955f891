/**
 * The public platform SDK's image builder (npm `tensorlake`: `Image(...).run(...).build()`) against this server
 * and real sandboxes, configured as a user's build script is: the API URL and key in the environment. The
 * requests it makes are recorded and printed; none may hit a route the server lacks.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  createSandboxImage,
  deleteSandboxImage,
  findSandboxImageByName,
  Image,
  listSandboxImages,
} from "tensorlake";
import { controlApi } from "../api.testing.ts";
import { missingPrerequisite, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import { runInTemplate } from "../sandboxes/template-sandbox.testing.ts";
import { startTestServer, type TestServer } from "../testing.ts";

const skip = missingPrerequisite([...SANDBOX_TOOLS, "tar"]);

/** The first sandbox of a machine may wait for the default image build; a loaded machine is slow. */
const TIMEOUT_MS = 600_000;

describe("the official SDK's image builder against this server", { skip }, () => {
  let server: TestServer;
  let contextDir: string;
  const recorded: string[] = [];

  before(async () => {
    server = await startTestServer({ executor: "local" });
    contextDir = mkdtempSync(join(tmpdir(), "svc-sdk-build-"));
    writeFileSync(join(contextDir, "hello.txt"), "hello from the context\n");
    process.env.TENSORLAKE_API_URL = server.url;
    process.env.TENSORLAKE_API_KEY = server.apiKey;
    const record = (req: IncomingMessage, res: ServerResponse) => {
      res.on("finish", () =>
        recorded.push(
          `${req.method} ${(req.url ?? "")
            .split("?")[0]
            .replace(/sbx-[a-z2-7]{20}/g, "{sandbox_id}")
            .replace(/bld_[a-z2-7]{26}/g, "{build_id}")
            .replace(/org_[a-z2-7]{26}/g, "{org}")
            .replace(/proj_[a-z2-7]{26}/g, "{project}")} → ${res.statusCode}`,
        ),
      );
    };
    server.app.server.on("request", record);
  });

  after(async () => {
    console.log(
      `# requests the SDK's builder made:\n${[...new Set(recorded)].map((l) => `#   ${l}`).join("\n")}`,
    );
    rmSync(contextDir, { recursive: true, force: true });
    await server?.stop();
  });

  test("Image(...).run(...).build() makes a template that sandboxes start from", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const image = new Image({ name: "sdk-built", baseImage: "default" })
      .run("echo built by the sdk > /built.txt")
      .env("SDK_VAR", "from-env")
      .workdir("/work")
      .copy("hello.txt", "/work/hello.txt");
    const result = (await image.build({ contextDir })) as Record<string, unknown>;
    assert.match(String(result.templateId), /^tmpl_/);
    assert.equal(result.name, "sdk-built");

    const call = controlApi(server);
    const template = (await call("GET", "/templates/sdk-built")).json;
    assert.equal(template.template_id, result.templateId);
    assert.deepEqual(template.config.env, { SDK_VAR: "from-env" });
    assert.equal(template.config.working_dir, "/work");

    assert.equal(
      await runInTemplate(server, "sdk-built", 'cat /built.txt hello.txt; pwd; echo "$SDK_VAR"', {
        user: null,
        timeoutMs: TIMEOUT_MS,
      }),
      "built by the sdk\nhello from the context\n/work\nfrom-env\n",
    );
    const live = (await call("GET", "/sandboxes")).json.sandboxes.filter(
      (s: { status: string }) => s.status !== "terminated",
    );
    assert.deepEqual(live, [], "the builder and build sandboxes are gone");
    assert.ok(
      recorded.some((l) => /sandbox-template-builds\/\{build_id\}\/complete → 200/.test(l)),
      recorded.join("\n"),
    );
    assert.ok(!recorded.some((l) => /→ 501|ROUTE/.test(l)), recorded.join("\n"));
  });

  test("a Dockerfile FROM a built template; find, list and delete images by name", {
    timeout: TIMEOUT_MS,
  }, async () => {
    const me = (await controlApi(server)("POST", "/platform/v1/keys/introspect")).json;
    process.env.TENSORLAKE_ORGANIZATION_ID = me.organizationId;
    process.env.TENSORLAKE_PROJECT_ID = me.projectId;
    const found = await findSandboxImageByName("sdk-built");
    assert.equal(found?.name, "sdk-built");
    assert.equal(await findSandboxImageByName("no-such-image"), null);

    const dockerfile = join(contextDir, "Second.Dockerfile");
    writeFileSync(dockerfile, "FROM sdk-built\nRUN test -f /built.txt && cat hello.txt > second.txt\n");
    const result = (await createSandboxImage(dockerfile, { registeredName: "sdk-second" })) as Record<
      string,
      unknown
    >;
    assert.equal(result.name, "sdk-second");
    const second = (await controlApi(server)("GET", "/templates/sdk-second")).json;
    assert.equal(second.config.working_dir, "/work", "the parent's WORKDIR carries on");

    const names = (await listSandboxImages()).map((t) => t.name).sort();
    assert.deepEqual(names, ["sdk-built", "sdk-second"]);
    await deleteSandboxImage("sdk-second");
    assert.equal(await findSandboxImageByName("sdk-second"), null);
  });
});
