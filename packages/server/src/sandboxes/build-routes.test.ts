/**
 * Template builds on real sandboxes: a Dockerfile and a context tar made into a template through
 * `POST /templates/{name}/build`, its log followed as SSE, the template started, the step cache (a fully
 * cached rebuild starts no sandbox; a changed file reruns from its COPY), FROM a template, and bad input.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type BuildLogEvent, readSseStream, type TemplateBuild } from "@svc/contract";
import { Client } from "@svc/sdk";
import { controlApi } from "../api.testing.ts";
import { missingPrerequisite, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import { startTestServer, type TestServer } from "../testing.ts";
import { contextTar } from "./context-tar.testing.ts";
import { runInTemplate, settledRecord } from "./template-sandbox.testing.ts";

const skip = missingPrerequisite([...SANDBOX_TOOLS, "tar"]);

/** The first sandbox of a machine may wait for the default image build; a loaded machine is slow. */
const BUILD_TIMEOUT_MS = 600_000;

const DOCKERFILE = `# a three-step build with process defaults
FROM default
ARG GREETING=hello WHO=world
ENV GREETING=\${GREETING} APP_HOME=/opt/app
WORKDIR /opt/app
COPY app/ ./
RUN echo "$GREETING from $(id -un) in $(pwd)" > built.txt && cat built.txt && cat message.txt && echo "arg $WHO"
EXPOSE 8080
USER svc-user
CMD ["cat", "built.txt"]
`;

describe("template builds", { skip }, () => {
  let server: TestServer;
  const call = (method: string, path: string, body?: unknown, options?: { raw?: Uint8Array | string }) =>
    controlApi(server)(method, path, body, options);

  before(async () => {
    server = await startTestServer({ executor: "local" });
  });
  after(async () => {
    await server?.stop();
  });

  /** Submits a build and follows its log to the end: the final record and the lines. */
  async function build(
    name: string,
    tar: Buffer,
    query = "",
  ): Promise<{ build: TemplateBuild; log: BuildLogEvent[] }> {
    const submitted = await call("POST", `/templates/${name}/build${query}`, undefined, { raw: tar });
    assert.equal(submitted.status, 202, submitted.text);
    assert.ok(["pending", "running"].includes(submitted.json.status));
    const response = await fetch(`${server.url}/template-builds/${submitted.json.build_id}/logs`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
      signal: AbortSignal.timeout(BUILD_TIMEOUT_MS),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
    const log: BuildLogEvent[] = [];
    let end: TemplateBuild | null = null;
    for await (const message of readSseStream(response.body as unknown as AsyncIterable<Uint8Array>)) {
      if (message.event === "log") log.push(JSON.parse(message.data));
      if (message.event === "end") end = JSON.parse(message.data);
    }
    assert.ok(end, "the stream ends with the record");
    assert.deepEqual((await call("GET", `/template-builds/${end.build_id}`)).json, end);
    return { build: end, log };
  }

  /** Runs a script in a new sandbox of the template, as root unless `user` is null (the sandbox's default). */
  const runIn = (templateName: string, script: string, user: string | null = "root") =>
    runInTemplate(server, templateName, script, { user, timeoutMs: BUILD_TIMEOUT_MS });

  const files = { Dockerfile: DOCKERFILE, "app/message.txt": "copied\n", "app/sub/deep.txt": "deep\n" };

  test("a Dockerfile build makes a template: RUN, ENV, ARG, WORKDIR, COPY, USER, CMD", {
    timeout: BUILD_TIMEOUT_MS,
  }, async () => {
    const { build: done, log } = await build(
      "web",
      contextTar(files),
      "?build_arg=GREETING=bonjour&allow_internet_access=false&allow_out=127.0.0.2",
    );
    assert.equal(done.status, "succeeded", log.map((l) => l.line).join("\n"));
    const builder = /Build sandbox (sbx-\S+) starting/.exec(log.map((l) => l.line).join("\n"))?.[1];
    const archived = (await call("GET", `/archived-sandboxes/${builder}`)).json;
    assert.deepEqual(
      archived.network_policy,
      { allow_internet_access: false, allow_out: ["127.0.0.2"] },
      "RUN steps ran under the build's egress policy",
    );
    assert.equal(done.steps, 7);
    assert.equal(done.cached_steps, 0);
    assert.deepEqual(done.warnings, ["line 8: EXPOSE has no effect on a sandbox"]);
    const lines = log.map((l) => l.line);
    assert.ok(lines.includes("Step 1/8 : FROM default"), lines.join("\n"));
    assert.ok(lines.includes("Step 2/8 : ARG GREETING=bonjour WHO=world"), lines.join("\n"));
    assert.ok(
      log.some((l) => l.stream === "stdout" && l.line === "bonjour from root in /opt/app"),
      "the RUN's output is streamed",
    );
    assert.ok(log.some((l) => l.stream === "stdout" && l.line === "copied"));
    assert.ok(
      log.some((l) => l.stream === "stdout" && l.line === "arg world"),
      "ARGs are RUN's environment",
    );

    const template = (await call("GET", "/templates/web")).json;
    assert.equal(template.template_id, done.template_id);
    assert.equal(template.source, "snapshot");
    assert.deepEqual(template.config, {
      env: { GREETING: "bonjour", APP_HOME: "/opt/app" },
      working_dir: "/opt/app",
      user: "svc-user",
      entrypoint: null,
      cmd: ["cat", "built.txt"],
    });
    const out = await runIn(
      "web",
      "cat /opt/app/built.txt /opt/app/message.txt /opt/app/sub/deep.txt; stat -c '%U' /opt/app/message.txt; ls -a /tmp",
    );
    assert.match(out, /^bonjour from root in \/opt\/app\ncopied\ndeep\nroot\n/);
    assert.doesNotMatch(out, /svc-build-context/, "the context does not stay in the template");
    assert.equal(
      await runIn("web", 'id -un; pwd; echo "$APP_HOME $GREETING"', null),
      "svc-user\n/opt/app\n/opt/app bonjour\n",
      "ENV, WORKDIR and USER are the defaults of the template's processes",
    );
    // The Dockerfile's CMD ran at start as a listed process, as USER in WORKDIR.
    const created = await call("POST", "/sandboxes", { template_id: "web", resources: { cpus: 0.5 } });
    const id = created.json.sandbox_id;
    try {
      assert.deepEqual(created.json.entrypoint ?? (await call("GET", `/sandboxes/${id}`)).json.entrypoint, [
        "cat",
        "built.txt",
      ]);
      const deadline = Date.now() + BUILD_TIMEOUT_MS;
      const sandbox = await settledRecord(server, id, BUILD_TIMEOUT_MS);
      type Answer = {
        processes: { pid: number; command: string; args: string[]; status: string; exit_code: number }[];
        lines: string[];
      };
      const daemon = (path: string) =>
        fetch(`${sandbox.sandbox_url}${path}`, {
          headers: { authorization: `Bearer ${server.apiKey}` },
        }).then((r) => r.json() as Promise<Answer>);
      let listed = (await daemon("/api/v1/processes")).processes;
      while (listed.some((p) => p.status === "running") && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        listed = (await daemon("/api/v1/processes")).processes;
      }
      assert.deepEqual(
        listed.map((p) => [p.command, p.args, p.exit_code]),
        [["cat", ["built.txt"], 0]],
      );
      assert.deepEqual((await daemon(`/api/v1/processes/${listed[0].pid}/stdout`)).lines, [
        "bonjour from root in /opt/app",
      ]);
    } finally {
      await call("DELETE", `/sandboxes/${id}`);
    }
  });

  test("a rebuild with every step cached starts no sandbox; a changed file reruns from its COPY", {
    timeout: BUILD_TIMEOUT_MS,
  }, async () => {
    const before = (await call("GET", "/sandboxes")).json.sandboxes.length;
    const cached = await build("web-again", contextTar(files), "?build_arg=GREETING=bonjour");
    assert.equal(cached.build.status, "succeeded");
    assert.equal(cached.build.cached_steps, 7);
    assert.ok(!cached.log.some((l) => /Build sandbox/.test(l.line)), "no build sandbox");
    assert.equal((await call("GET", "/sandboxes")).json.sandboxes.length, before, "no sandbox created");
    const first = (await call("GET", "/templates/web")).json;
    const again = (await call("GET", "/templates/web-again")).json;
    assert.equal(again.snapshot_id, first.snapshot_id);

    const changed = await build(
      "web-changed",
      contextTar({ ...files, "app/message.txt": "changed\n" }),
      "?build_arg=GREETING=bonjour",
    );
    assert.equal(changed.build.status, "succeeded");
    assert.equal(changed.build.cached_steps, 3, "ARG, ENV and WORKDIR came from the cache");
    assert.ok(changed.log.some((l) => l.line === "changed"));
    assert.match(await runIn("web-changed", "cat /opt/app/message.txt"), /^changed\n/);
  });

  test("FROM a template builds on its files", { timeout: BUILD_TIMEOUT_MS }, async () => {
    const tar = contextTar({
      Dockerfile:
        "FROM web\nRUN id -un\nUSER root\nRUN test -f /opt/app/built.txt && echo on top > top.txt\n",
    });
    const { build: done, log } = await build("web-top", tar);
    assert.equal(done.status, "succeeded", log.map((l) => l.line).join("\n"));
    assert.ok(
      log.some((l) => l.stream === "stdout" && l.line === "svc-user"),
      "the parent's USER carries on",
    );
    assert.match(
      await runIn("web-top", "cat /opt/app/built.txt /opt/app/top.txt"),
      /^bonjour from root in \/opt\/app\non top\n/,
    );
    const top = (await call("GET", "/templates/web-top")).json;
    assert.equal(top.config.user, "root");
    assert.equal(top.config.working_dir, "/opt/app", "the parent's WORKDIR carries on");
    assert.equal(await runIn("web-top", "id -un; pwd", null), "root\n/opt/app\n");
  });

  test("cached steps are build-cache snapshots: listed when asked for, removed with the last template using them", {
    timeout: BUILD_TIMEOUT_MS,
  }, async () => {
    type Listed = { snapshot_id: string; kind: string };
    const cacheIds = async () =>
      new Set(
        ((await call("GET", "/snapshots?include=build_cache")).json.snapshots as Listed[])
          .filter((s) => s.kind === "build_cache")
          .map((s) => s.snapshot_id),
      );
    const plain = (await call("GET", "/snapshots")).json.snapshots as Listed[];
    assert.ok(
      plain.every((s) => s.kind === "sandbox"),
      "the plain listing has no build cache",
    );
    const web = (await call("GET", "/templates/web")).json;
    const changed = (await call("GET", "/templates/web-changed")).json;
    const before = await cacheIds();
    assert.ok(before.has(web.snapshot_id) && before.has(changed.snapshot_id), [...before].join(" "));
    assert.equal((await call("GET", `/snapshots/${web.snapshot_id}`)).json.kind, "build_cache");
    const sdk = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    assert.deepEqual(
      new Set((await sdk.snapshots.list({ includeBuildCache: true })).map((s) => s.snapshot_id)),
      new Set([...before, ...plain.map((s) => s.snapshot_id)]),
    );
    assert.deepEqual(
      (await sdk.snapshots.list()).map((s) => s.snapshot_id),
      plain.map((s) => s.snapshot_id),
    );

    // web-changed shares ARG, ENV and WORKDIR with web: its own steps go, the shared ones stay.
    assert.equal((await call("DELETE", "/templates/web-changed")).status, 204);
    const after = await cacheIds();
    const removed = [...before].filter((id) => !after.has(id));
    assert.ok(removed.includes(changed.snapshot_id), "its own snapshot is removed");
    assert.equal((await call("GET", `/snapshots/${changed.snapshot_id}`)).status, 404);
    assert.ok(removed.length >= 2 && removed.length < before.size, `removed ${removed.length}`);
    assert.ok(after.has(web.snapshot_id));

    // web and web-again are made from the same steps: the first delete keeps them, the second removes them.
    assert.equal((await call("DELETE", "/templates/web-again")).status, 204);
    assert.ok((await cacheIds()).has(web.snapshot_id), "web still uses its steps");
    assert.equal((await call("DELETE", "/templates/web")).status, 204);
    assert.equal((await call("GET", `/snapshots/${web.snapshot_id}`)).status, 404);
    const top = (await call("GET", "/templates/web-top")).json;
    assert.ok((await cacheIds()).has(top.snapshot_id), "web-top, built on web, keeps its own steps");
  });

  test("bad input: a clear error, never a path out of the context", {
    timeout: BUILD_TIMEOUT_MS,
  }, async () => {
    const syntax = await call("POST", "/templates/bad/build", undefined, {
      raw: contextTar({ Dockerfile: "FROM default\nFROBNICATE x\n" }),
    });
    assert.equal(syntax.status, 400);
    assert.equal(syntax.json.code, "INVALID_DOCKERFILE");
    assert.match(syntax.json.message, /line 2: unknown instruction FROBNICATE/);

    const missing = await call("POST", "/templates/bad/build?dockerfile=build/Dockerfile", undefined, {
      raw: contextTar(files),
    });
    assert.equal(missing.json.code, "INVALID_DOCKERFILE");
    assert.match(missing.json.message, /no file build\/Dockerfile/);

    const exists = await call("POST", "/templates/web-top/build", undefined, { raw: contextTar(files) });
    assert.equal(exists.status, 409);
    assert.equal(exists.json.code, "TEMPLATE_EXISTS");

    // A context whose entry climbs out of it.
    const header = Buffer.alloc(512);
    header.write("../escape.txt", 0);
    header.write("0000644\0", 100);
    header.write("0000000\0", 108);
    header.write("0000000\0", 116);
    header.write("00000000005\0", 124);
    header.write("00000000000\0", 136);
    header.write("0", 156);
    header.write("        ", 148);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
    const escaping = Buffer.concat([header, Buffer.from("evil\n"), Buffer.alloc(507 + 1024)]);
    const climbing = await call("POST", "/templates/bad/build", undefined, { raw: escaping });
    assert.equal(climbing.status, 400);
    assert.equal(climbing.json.code, "INVALID_FILE");
    assert.match(climbing.json.message, /outside/);

    const outside = await build(
      "bad-copy",
      contextTar({ Dockerfile: "FROM default\nCOPY ../etc/passwd /x\n" }),
    );
    assert.equal(outside.build.status, "failed");
    assert.match(outside.build.error ?? "", /line 2: .*outside/);

    const failing = await build(
      "bad-run",
      contextTar({ Dockerfile: "FROM default\nRUN echo about to fail; exit 3\n" }),
    );
    assert.equal(failing.build.status, "failed");
    assert.match(failing.build.error ?? "", /line 2: RUN echo about to fail; exit 3 ended with 3/);
    assert.ok(failing.log.some((l) => l.line === "about to fail"));
    assert.equal((await call("GET", "/templates/bad-run")).status, 404, "no template of a failed build");
    assert.equal((await call("GET", "/template-builds/bld_nothing")).json.code, "BUILD_NOT_FOUND");
    const listed = (await call("GET", "/template-builds")).json.builds;
    assert.equal(listed[0].build_id, failing.build.build_id, "newest first");
    assert.ok(listed.some((b: { template_name: string }) => b.template_name === "web"));
  });
});
