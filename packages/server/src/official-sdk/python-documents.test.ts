/**
 * The public platform's Python SDK, its document client (`tensorlake.documentai`, kept in
 * `../shared/clients/tensorlake-python`), against a real server: python_documents.py beside this file calls every
 * public method of `DocumentAI` the server serves (files, parse, read, extract, classify, datasets, results over
 * server-sent events and by polling, errors, the async variants) and checks what it gets back. Every request the
 * SDK makes is recorded and printed; none may hit a route the server lacks.
 *
 * Needs python3 with pydantic 2, and Debian's python3-httpx and python3-rich (scripts/install.sh test). Where one
 * is missing the suite is skipped with the reason, except in CI (CI=true), where that is a failure.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { CORPUS_ROOT } from "@svc/docparse/test-corpus";
import { startTestServer, type TestServer } from "../testing.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, "../../../..");
const CLIENT_DIR =
  process.env.SVC_PYTHON_SDK_DIR ?? path.resolve(REPO_ROOT, "../shared/clients/tensorlake-python");
const PDF = CORPUS_ROOT ? path.join(CORPUS_ROOT, "docling/tests/data/pdf/sources/multi_page.pdf") : "";
/** The whole script runs about a dozen jobs; this is many times what it takes on a loaded machine. */
const SCRIPT_TIMEOUT_MS = 10 * 60_000;

/** The environment the SDK runs in: its sources first, nothing of the caller's but PATH and HOME. */
function pythonEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    PYTHONPATH: [path.join(CLIENT_DIR, "src"), path.join(CLIENT_DIR, "shim")].join(":"),
    // The client's directory is read-only in CI: no __pycache__ there.
    PYTHONDONTWRITEBYTECODE: "1",
    TENSORLAKE_SDK_COLOR: "0",
    ...extra,
  };
}

const PROBE =
  "import sys; sys.path.append('/usr/lib/python3/dist-packages'); import pydantic, httpx, rich; " +
  "assert int(pydantic.VERSION.split('.')[0]) >= 2, 'pydantic ' + pydantic.VERSION + ' (2 needed)'";

/**
 * Python interpreters to try, first the one named by SVC_PYTHON: python3 on PATH, then interpreters installed
 * beside the system's (pyenv's, /usr/local), since CI's PATH may be minimal and Debian 12's own has pydantic 1.
 */
function pythonCandidates(): string[] {
  const home = process.env.HOME ?? "/root";
  const pyenv = [home, "/root"].flatMap((dir) => {
    const versions = path.join(dir, ".pyenv/versions");
    return existsSync(versions)
      ? readdirSync(versions)
          .sort()
          .reverse()
          .map((v) => path.join(versions, v, "bin/python3"))
      : [];
  });
  const all = [process.env.SVC_PYTHON, "python3", ...pyenv, "/usr/local/bin/python3", "/usr/bin/python3"];
  return [...new Set(all.filter((p): p is string => Boolean(p)))];
}

/** The interpreter the SDK runs in, or why there is none. */
function findPython(): { python: string } | { missing: string } {
  if (!existsSync(path.join(CLIENT_DIR, "src/tensorlake/documentai"))) {
    return { missing: `no Python SDK at ${CLIENT_DIR}` };
  }
  if (!PDF || !existsSync(PDF)) return { missing: "no test corpus (../shared/corpus)" };
  const reasons: string[] = [];
  for (const python of pythonCandidates()) {
    const probe = spawnSync(python, ["-c", PROBE], { env: pythonEnv(), encoding: "utf8", timeout: 60_000 });
    if (probe.status === 0) return { python };
    const why = probe.error ? probe.error.message : probe.stderr.trim().split("\n").at(-1);
    reasons.push(`${python}: ${why}`);
  }
  return { missing: `no python3 with pydantic 2, httpx and rich (${reasons.join("; ")})` };
}

const found = findPython();
const python = "python" in found ? found.python : "python3";
const missing = "missing" in found ? found.missing : null;
if (missing && process.env.CI === "true") {
  test("the Python SDK's prerequisites are installed in CI", () => {
    assert.fail(`${missing}: install them with scripts/install.sh test`);
  });
}
const skip = missing ? `skipped: ${missing}` : false;

interface Recorded {
  method: string;
  path: string;
  status: number;
}

/** Ids in a path become placeholders, so the recording reads as the SDK's route table. */
function template(url: string): string {
  return url
    .split("?")[0]
    .replace(/\/file_[A-Za-z0-9_-]+/g, "/{file_id}")
    .replace(/\/parse_[a-z0-9]+/g, "/{parse_id}")
    .replace(/\/dataset_[a-z0-9]+/g, "/{dataset_id}");
}

function runScript(server: TestServer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [path.join(HERE, "python_documents.py")], {
      env: pythonEnv({ SVC_URL: server.url, SVC_KEY: server.apiKey, SVC_CORPUS_PDF: PDF }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), SCRIPT_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("the official Python SDK's document client against this server", { skip }, () => {
  let server: TestServer;
  const recorded: Recorded[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: the script's report is read by shape.
  let report: any;

  before(async () => {
    server = await startTestServer();
    server.app.server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const entry = { method: req.method ?? "", path: template(req.url ?? ""), status: 0 };
      recorded.push(entry);
      res.on("finish", () => {
        entry.status = res.statusCode;
      });
    });
    const run = await runScript(server);
    assert.equal(run.code, 0, `python_documents.py failed:\n${run.stderr.slice(-4000)}`);
    report = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "");
  });

  after(async () => {
    if (!server) return;
    const table = [...new Set(recorded.map((r) => `${r.method} ${r.path} → ${r.status}`))].sort();
    console.log(`# requests the SDK made:\n${table.map((line) => `#   ${line}`).join("\n")}`);
    await server.stop();
  });

  test("files: upload, list in the SDK's FileInfo shape with paging and a name filter, delete", () => {
    assert.deepEqual(report.files.names, ["multi_page.pdf", "second.md"]);
    assert.deepEqual(report.files.paged, ["second.md", "multi_page.pdf"]);
  });

  test("parse and read: results over server-sent events and by polling", () => {
    assert.equal(report.parse.pages, 2);
    assert.ok(report.parse.read_chunks >= 2, "one chunk per page at least");
  });

  test("extract and classify start jobs whose results carry only what they asked for", () => {
    assert.deepEqual(report.extract, { invoice_number: "INV-2041", total_due: 1296 });
    assert.deepEqual(report.classify, ["invoice"]);
  });

  test("datasets: create, get, list, update, parse a file, its data, delete", () => {
    assert.equal(report.dataset_data, 1);
    for (const route of ["POST /documents/v2/datasets", "PUT /documents/v2/datasets/{dataset_id}"]) {
      assert.ok(
        recorded.some((r) => `${r.method} ${r.path}` === route && r.status === 200),
        route,
      );
    }
  });

  test("errors reach the SDK with its own codes and our messages", () => {
    assert.match(report.errors.not_found, /^No parse job parse_/);
    assert.match(report.errors.exists, /already exists/);
    assert.match(report.errors.page_range, /3-1/);
    assert.match(report.errors.edit, /Form filling \(edit\) is not offered/);
    assert.equal(report.async_not_found, "ENTITY_NOT_FOUND");
  });

  test("every request hit a served route; edit is the one 501", () => {
    const byRoute = (method: string, route: string) =>
      recorded.filter((r) => r.method === method && r.path === route).map((r) => r.status);
    assert.ok(byRoute("POST", "/documents/v2/extract").includes(200));
    assert.ok(byRoute("POST", "/documents/v2/classify").includes(200));
    assert.deepEqual(byRoute("POST", "/documents/v2/edit"), [501]);
    // The SDK sends Content-Type: application/json with these empty bodies.
    assert.ok(byRoute("DELETE", "/documents/v2/files/{file_id}").includes(204));
    assert.ok(byRoute("DELETE", "/documents/v2/datasets/{dataset_id}").includes(204));
    const served = new Set(
      server.app.servedRoutes.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, "{$1}")}`),
    );
    for (const r of recorded) {
      const route = `${r.method} ${r.path}`;
      assert.ok(served.has(route), `the SDK called ${route}, which the server does not serve`);
      assert.ok(r.status < 500 || route === "POST /documents/v2/edit", `${route} → ${r.status}`);
    }
  });
});
