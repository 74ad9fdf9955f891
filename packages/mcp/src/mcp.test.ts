/**
 * The MCP server through the official SDK's own client, over both transports, against a real server with real
 * sandboxes and the offline document provider: Streamable HTTP at /mcp on the control API port (mounted as
 * `svc server` mounts it) and stdio (`svc mcp` started as an agent client starts it).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { corpusPath, NO_CORPUS } from "@svc/docparse/test-corpus";
import { Client } from "@svc/sdk";
import { startTestServer, type TestServer } from "@svc/server";
import { missingPrerequisite, SANDBOX_TOOLS } from "@svc/server/test-support";
import { createMcpHttpMount, type McpHttpMount } from "./http.ts";
import { TOOL_NAMES } from "./tools.ts";

const skip = missingPrerequisite(SANDBOX_TOOLS);
const CLI = path.join(import.meta.dirname, "..", "..", "cli", "src", "main.ts");
/** Calls may wait for the machine's first sandbox (the default image build) on a loaded machine. */
const CALL_MS = 900_000;

interface Called {
  result: CallToolResult;
  text: string;
  progress: string[];
}

async function call(client: McpClient, name: string, args: Record<string, unknown>): Promise<Called> {
  const progress: string[] = [];
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: CALL_MS,
    onprogress: (p) => {
      if (p.message) progress.push(p.message);
    },
  })) as CallToolResult;
  const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return { result, text, progress };
}

/** A call that must succeed: its JSON answer (or text). */
async function ok(client: McpClient, name: string, args: Record<string, unknown>) {
  const called = await call(client, name, args);
  assert.ok(!called.result.isError, `${name} failed: ${called.text}`);
  return called;
}

/** A call that must fail: its error text. */
async function fails(client: McpClient, name: string, args: Record<string, unknown>): Promise<string> {
  const called = await call(client, name, args);
  assert.equal(called.result.isError, true, `${name} should fail: ${called.text}`);
  return called.text;
}

async function httpClient(
  url: string,
  key: string,
): Promise<{ client: McpClient; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  const client = new McpClient({ name: "svc-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** Polls a sandbox's status until it is `status` (a generous time: sandboxes end in the background). */
async function waitForStatus(api: Client, id: string, status: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const record = await (await api.sandboxes.get(id)).refresh();
    if (record.status === status) return;
    if (Date.now() > deadline) assert.fail(`sandbox ${id} is ${record.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("MCP server against a real server and real sandboxes", { skip }, () => {
  let server: TestServer;
  let api: Client;
  let otherKey: string;
  const mount = createMcpHttpMount();
  const idle: McpHttpMount = createMcpHttpMount({ prefix: "/mcp-idle", idleTimeoutMs: 3000 });
  let url: string;

  before(async () => {
    server = await startTestServer(
      { executor: "local" },
      { mounts: [mount, idle], documents: { workers: 1, pollIntervalMs: 50 } },
    );
    api = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    url = `${server.url}/mcp`;
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "mcp-other");
    otherKey = (await server.store.apiKeys.create({ projectId: other.id })).key;
  });
  after(async () => {
    await server?.stop();
  });

  test("HTTP: the API key is checked at initialize; a session answers only its own key", async () => {
    const anonymous = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    assert.equal(anonymous.status, 401);
    assert.equal(((await anonymous.json()) as { code: string }).code, "UNAUTHORIZED");
    await assert.rejects(httpClient(url, "svc_apiKey_not-a-key"), /401|UNAUTHORIZED/);

    const { client, transport } = await httpClient(url, server.apiKey);
    try {
      const tools = (await client.listTools()).tools;
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
      for (const tool of tools) {
        assert.ok(tool.description && tool.description.length > 20, tool.name);
        for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
          assert.ok(
            (schema as { description?: string }).description,
            `${tool.name}.${name} has a description`,
          );
        }
      }
      const parse = tools.find((t) => t.name === "document_parse");
      assert.ok(!parse?.inputSchema.properties?.path, "no local paths over HTTP");

      // Another project's key cannot use this session; the key that opened it still can.
      const stolen = await fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${otherKey}`,
          "mcp-session-id": transport.sessionId ?? "",
          "mcp-protocol-version": "2025-06-18",
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/list" }),
      });
      assert.equal(stolen.status, 404);
      await stolen.body?.cancel();
      assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length);
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  test("HTTP: run_code makes one sandbox and reuses it; output lines come as progress; DELETE ends it", async () => {
    const { client, transport } = await httpClient(url, server.apiKey);
    let sandboxId = "";
    try {
      const bash = await ok(client, "run_code", {
        language: "bash",
        code: "echo from-bash; echo to-stderr >&2; echo 41 > /tmp/shared.txt",
      });
      const ran = JSON.parse(bash.text);
      assert.equal(ran.exit_code, 0);
      assert.equal(ran.stdout, "from-bash\n");
      assert.equal(ran.stderr, "to-stderr\n");
      assert.ok(bash.progress.includes("stdout: from-bash"), bash.progress.join("|"));
      assert.ok(
        bash.progress.some((m) => /sandbox sbx-\S+ created/.test(m)),
        bash.progress.join("|"),
      );

      const python = await ok(client, "run_code", {
        language: "python",
        code: "print(int(open('/tmp/shared.txt').read()) + 1)\nimport sys; sys.exit(3)",
      });
      assert.deepEqual(
        { exit_code: JSON.parse(python.text).exit_code, stdout: JSON.parse(python.text).stdout },
        { exit_code: 3, stdout: "42\n" },
      );
      assert.ok(!python.progress.some((m) => /created/.test(m)), "the second call reuses the sandbox");

      const js = await ok(client, "run_code", {
        language: "javascript",
        code: "const fs = require('node:fs'); console.log(fs.readFileSync('/tmp/shared.txt', 'utf8').trim() * 2)",
      });
      assert.equal(JSON.parse(js.text).stdout, "82\n");

      const listed = JSON.parse((await ok(client, "sandbox_list", {})).text);
      const mine = listed.filter((s: { ended_with_this_session: boolean }) => s.ended_with_this_session);
      assert.equal(mine.length, 1, "one sandbox for three runs");
      sandboxId = mine[0].sandbox_id;
      assert.equal(mine[0].status, "running");
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    assert.ok(sandboxId);
    await waitForStatus(api, sandboxId, "terminated");
  });

  test("HTTP: sandbox tools, errors with the API's codes, and a kept sandbox outlives the session", async () => {
    const { client, transport } = await httpClient(url, server.apiKey);
    let kept = "";
    let ended = "";
    try {
      const created = await ok(client, "sandbox_create", {
        name: "mcp-tools",
        memory_mb: 512,
        disk_mb: 2048,
      });
      ended = JSON.parse(created.text).sandbox_id;
      assert.equal(JSON.parse(created.text).status, "running");
      kept = JSON.parse((await ok(client, "sandbox_create", { keep: true, disk_mb: 2048 })).text).sandbox_id;

      const ran = JSON.parse(
        (
          await ok(client, "sandbox_run", {
            sandbox: "mcp-tools",
            command: "sh",
            args: ["-c", 'pwd; echo "$GREETING"; exit 7'],
            working_dir: "/tmp",
            env: { GREETING: "hello" },
          })
        ).text,
      );
      assert.deepEqual(ran, { exit_code: 7, stdout: "/tmp\nhello\n", stderr: "" });
      const slept = JSON.parse(
        (await ok(client, "sandbox_run", { sandbox: ended, command: "sleep", args: ["30"], timeout_secs: 1 }))
          .text,
      );
      assert.notEqual(slept.exit_code, 0, "the timeout killed it");

      await ok(client, "sandbox_write_file", {
        sandbox: "mcp-tools",
        path: "/tmp/dir/a.txt",
        content: "é text\n",
      });
      assert.equal(
        (await ok(client, "sandbox_read_file", { sandbox: ended, path: "/tmp/dir/a.txt" })).text,
        "é text\n",
      );
      const binary = Buffer.from([0, 0xff, 0x80, 1]).toString("base64");
      await ok(client, "sandbox_write_file", {
        sandbox: ended,
        path: "/tmp/b.bin",
        content: binary,
        encoding: "base64",
      });
      assert.equal(
        (await ok(client, "sandbox_read_file", { sandbox: ended, path: "/tmp/b.bin" })).text,
        `base64:${binary}`,
      );

      assert.match(
        await fails(client, "sandbox_run", { sandbox: "no-such-sandbox", command: "true" }),
        /^SANDBOX_NOT_FOUND: /,
      );
      assert.match(
        await fails(client, "sandbox_read_file", { sandbox: ended, path: "/tmp/absent" }),
        /^NOT_FOUND: /,
      );
      assert.match(
        await fails(client, "sandbox_run", { sandbox: ended, command: "/no/such/program" }),
        /^SPAWN_FAILED: /,
      );

      const terminated = JSON.parse((await ok(client, "sandbox_terminate", { sandbox: "mcp-tools" })).text);
      assert.equal(terminated.sandbox_id, ended);
      assert.equal(terminated.status, "terminated");
      assert.match(
        await fails(client, "sandbox_run", { sandbox: ended, command: "true" }),
        /^SANDBOX_NOT_RUNNING: /,
      );
    } finally {
      await transport.terminateSession();
      await client.close();
    }
    // The session closed: the kept sandbox still runs.
    assert.equal((await (await api.sandboxes.get(kept)).refresh()).status, "running");
    await (await api.sandboxes.get(kept)).delete();
  });

  test("HTTP: a session idle past its timeout is closed and its sandboxes end", async () => {
    const { client } = await httpClient(`${server.url}/mcp-idle`, server.apiKey);
    try {
      const created = await ok(client, "sandbox_create", { disk_mb: 2048 });
      const id = JSON.parse(created.text).sandbox_id;
      assert.ok(created.progress.length > 0, "progress while the sandbox starts");
      // A call that runs longer than the idle timeout keeps the session open until it answers.
      const slept = await ok(client, "sandbox_run", {
        sandbox: id,
        command: "sh",
        args: ["-c", "sleep 7; echo awake"],
      });
      assert.equal(JSON.parse(slept.text).stdout, "awake\n");
      await waitForStatus(api, id, "terminated");
      assert.equal(idle.sessions(), 0);
    } finally {
      await client.close();
    }
  });

  test("HTTP: document_parse (base64 with a page range, text) and document_extract with citations", {
    skip: NO_CORPUS,
  }, async () => {
    const { client, transport } = await httpClient(url, server.apiKey);
    try {
      const pdf = (await readFile(corpusPath("docling/tests/data", "pdf/sources/multi_page.pdf"))).toString(
        "base64",
      );
      const all = await ok(client, "document_parse", { content_base64: pdf, file_name: "multi_page.pdf" });
      assert.match(all.text, /The Evolution of the Word Processor/);
      assert.ok(
        all.progress.some((m) => /^uploaded as file_/.test(m)),
        all.progress.join("|"),
      );
      const second = await ok(client, "document_parse", {
        content_base64: pdf,
        file_name: "multi_page.pdf",
        pages: "2",
      });
      assert.ok(second.text.length > 100);
      assert.doesNotMatch(second.text, /The Evolution of the Word Processor/);

      const extracted = JSON.parse(
        (
          await ok(client, "document_extract", {
            text: "INVOICE\n\nInvoice Number: INV-77\n\nTotal Due: 120.50\n",
            schema: {
              type: "object",
              properties: { invoice_number: { type: "string" }, total_due: { type: "number" } },
              required: ["invoice_number", "total_due"],
            },
            schema_name: "invoice",
          })
        ).text,
      );
      assert.equal(extracted[0].schema_name, "invoice");
      assert.deepEqual(extracted[0].data, { invoice_number: "INV-77", total_due: 120.5 });
      assert.ok(
        extracted[0].citations.some((c: { field: string; text: string }) => /INV-77/.test(c.text)),
        JSON.stringify(extracted[0].citations),
      );

      assert.match(await fails(client, "document_parse", {}), /^INVALID_REQUEST: give exactly one source/);
      assert.match(
        await fails(client, "document_extract", { text: "x", schema: { type: "array" } }),
        /^INVALID_JSON_SCHEMA: /,
      );
      assert.match(
        await fails(client, "document_parse", { url: "http://127.0.0.1:1/private.pdf" }),
        /^(failure|INVALID_[A-Z_]+): .*/,
      );
    } finally {
      await transport.terminateSession();
      await client.close();
    }
  });

  test("stdio: svc mcp reads local paths, runs code, and ends its sandbox when the client goes", async () => {
    const env = {
      PATH: process.env.PATH ?? "",
      SERVICE_API_KEY: server.apiKey,
      SVC_API_URL: server.url,
      SVC_DATA_DIR: "/nonexistent",
    };
    const dir = await mkdtemp(path.join(tmpdir(), "svc-mcp-"));
    const notes = path.join(dir, "notes.md");
    await writeFile(notes, "# Release notes\n\n| change | count |\n|---|---|\n| fixed | 3 |\n");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env,
      stderr: "pipe",
    });
    const client = new McpClient({ name: "svc-test", version: "1.0.0" });
    await client.connect(transport);
    let sandboxId = "";
    try {
      const tools = (await client.listTools()).tools;
      assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
      assert.ok(tools.find((t) => t.name === "document_parse")?.inputSchema.properties?.path);

      const parsed = await ok(client, "document_parse", { path: notes });
      assert.match(parsed.text, /^# Release notes\n/);
      assert.match(parsed.text, /fixed( \| |<\/td><td>)3/, "the table's row (markdown or HTML)");
      assert.match(await fails(client, "document_parse", { path: "/nonexistent/file.pdf" }), /^NOT_FOUND: /);
      assert.match(await fails(client, "document_parse", { path: dir }), /^IS_DIRECTORY: /);

      const ran = await ok(client, "run_code", { language: "python", code: "print(6 * 7)" });
      assert.equal(JSON.parse(ran.text).stdout, "42\n");
      const listed = JSON.parse((await ok(client, "sandbox_list", {})).text);
      sandboxId = listed.find(
        (s: { ended_with_this_session: boolean }) => s.ended_with_this_session,
      ).sandbox_id;
    } finally {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    }
    await waitForStatus(api, sandboxId, "terminated");
  });

  test("stdio: a wrong key fails at start with the API's code", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp"],
      env: { PATH: process.env.PATH ?? "", SERVICE_API_KEY: "svc_apiKey_wrong", SVC_API_URL: server.url },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d) => {
      stderr += d;
    });
    const client = new McpClient({ name: "svc-test", version: "1.0.0" });
    await assert.rejects(client.connect(transport));
    await client.close().catch(() => undefined);
    assert.match(stderr, /UNAUTHORIZED/);
  });
});

describe("MCP sessions end their sandboxes when the server stops", { skip }, () => {
  test("svc server's stop closes the mounted MCP sessions first, while the API still answers", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "svc-mcp-stop-"));
    try {
      // The scheduler leaves running sandboxes running when it stops (to adopt them at the next start): only
      // the MCP sessions' close ends this one.
      const first = await startTestServer({ executor: "local", dataDir }, { mounts: [createMcpHttpMount()] });
      let sandboxId = "";
      try {
        const { client } = await httpClient(`${first.url}/mcp`, first.apiKey);
        await ok(client, "run_code", { language: "bash", code: "true" });
        sandboxId = JSON.parse((await ok(client, "sandbox_list", {})).text)[0].sandbox_id;
        await client.close();
      } finally {
        await first.stop();
      }
      const again = await startTestServer({ executor: "local", dataDir });
      try {
        const api = new Client({ apiKey: again.apiKey, baseUrl: again.url });
        const record = await (await api.sandboxes.get(sandboxId)).refresh();
        if (record.status !== "terminated") await (await api.sandboxes.get(sandboxId)).delete();
        assert.equal(record.status, "terminated");
      } finally {
        await again.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
