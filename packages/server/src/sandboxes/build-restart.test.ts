/**
 * A server killed (SIGKILL) while a template build runs a step: started again on the same data directory, it
 * ends the build `failed` with a reason that says so (read from the store, log included) and removes the build
 * sandbox, which the restart had adopted still running. The server is the real CLI in a child process.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { readSseStream, type TemplateBuild } from "@svc/contract";
import { LocalExecutor } from "../executor/linux/local-executor.ts";
import { missingPrerequisite, SANDBOX_TOOLS } from "../executor/linux/test-support.ts";
import {
  removeDataDir,
  type ServerProcess,
  serverDataDir,
  startServerProcess,
  stopServerProcess,
} from "../server-process.testing.ts";
import { contextTar } from "./context-tar.testing.ts";

const skip = missingPrerequisite([...SANDBOX_TOOLS, "tar"]);

/** The first sandbox of a machine may wait for the default image build; a loaded machine is slow. */
const TIMEOUT_MS = 600_000;

describe("a server killed mid-build ends the build failed and removes its build sandbox", { skip }, () => {
  let dataDir: string;
  let server: ServerProcess | undefined;

  before(async () => {
    dataDir = await serverDataDir("svc-build-restart-");
  });

  after(async () => {
    if (server) await stopServerProcess(server);
    // Whatever a failed test left on the host, removed as a restarted server would.
    if (dataDir) await removeDataDir(dataDir);
  });

  test("SIGKILL during a RUN step, then a restart", { timeout: TIMEOUT_MS * 2 }, async () => {
    server = await startServerProcess(dataDir, TIMEOUT_MS);
    const apiKey = (await readFile(join(dataDir, "api-key"), "utf8")).trim();
    const call = async (running: ServerProcess, method: string, path: string, body?: Uint8Array) => {
      const response = await fetch(`${running.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}` },
        ...(body ? { body } : {}),
      });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };

    const tar = contextTar({ Dockerfile: "FROM default\nRUN echo step started && sleep 3600\n" });
    const submitted = await call(server, "POST", "/templates/slow/build", tar);
    assert.equal(submitted.status, 202, JSON.stringify(submitted.json));
    const buildId = submitted.json.build_id as string;

    // Follow the log until the RUN step prints: the build sandbox runs it.
    const follow = new AbortController();
    const timer = setTimeout(() => follow.abort(), TIMEOUT_MS);
    const response = await fetch(`${server.url}/template-builds/${buildId}/logs`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: follow.signal,
    });
    let builder: string | undefined;
    let started = false;
    try {
      for await (const message of readSseStream(response.body as unknown as AsyncIterable<Uint8Array>)) {
        if (message.event !== "log") continue;
        const line = (JSON.parse(message.data) as { line: string }).line;
        builder ??= /Build sandbox (\S+) starting/.exec(line)?.[1];
        if (line === "step started") {
          started = true;
          break;
        }
      }
    } finally {
      clearTimeout(timer);
      follow.abort();
    }
    assert.ok(started && builder, "the RUN step started in a build sandbox");
    assert.equal((await call(server, "GET", `/sandboxes/${builder}`)).json.status, "running");

    server.child.kill("SIGKILL");
    assert.equal((await server.exited).signal, "SIGKILL");
    server = await startServerProcess(dataDir, TIMEOUT_MS);

    const build = (await call(server, "GET", `/template-builds/${buildId}`)).json as unknown as TemplateBuild;
    assert.equal(build.status, "failed");
    assert.match(build.error ?? "", /server running the build stopped before it ended/);
    assert.ok(build.finished_at);
    const listed = (await call(server, "GET", "/template-builds")).json.builds as TemplateBuild[];
    assert.deepEqual(
      listed.map((b) => [b.build_id, b.status]),
      [[buildId, "failed"]],
    );
    // The log as stored before the kill, and the end.
    const logResponse = await fetch(`${server.url}/template-builds/${buildId}/logs`, {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(60_000),
    });
    const lines: string[] = [];
    for await (const message of readSseStream(logResponse.body as unknown as AsyncIterable<Uint8Array>)) {
      if (message.event === "log") lines.push((JSON.parse(message.data) as { line: string }).line);
    }
    assert.ok(lines.includes(`Build sandbox ${builder} starting`), lines.join("\n"));
    assert.match(lines.at(-1) ?? "", /^build failed: the server running the build stopped/);

    // The build sandbox is ended through the ordinary delete path: terminated, nothing left on the host.
    const deadline = Date.now() + TIMEOUT_MS;
    let sandbox = (await call(server, "GET", `/sandboxes/${builder}`)).json;
    while (sandbox.status !== "terminated" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      sandbox = (await call(server, "GET", `/sandboxes/${builder}`)).json;
    }
    assert.equal(sandbox.status, "terminated", JSON.stringify(sandbox));
    const executor = new LocalExecutor({ dataDir, cpuOvercommit: 1, memoryOvercommit: 1, log: () => {} });
    const leftDeadline = Date.now() + 60_000;
    while ((await executor.leftovers()).includes(builder as string) && Date.now() < leftDeadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(!(await executor.leftovers()).includes(builder as string), "the build sandbox left nothing");
    assert.equal((await call(server, "GET", "/templates/slow")).status, 404, "no template of the build");
  });
});
