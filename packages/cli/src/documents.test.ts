import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "@svc/server";
import { runSvc } from "./svc.testing.ts";

/** Markdown sources of the docling test corpus (read-only). */
const SOURCES = "/work/shared/corpus/docling/tests/data/md/sources";
const source = (name: string) => path.join(SOURCES, name);

/** `svc` with `input` on its stdin, when given. */
const svc = (args: string[], env: Record<string, string>, input?: string | Uint8Array) =>
  runSvc(args, env, { input });

/** The cells of each row of the markdown tables in a text, separator rows left out, cells trimmed. */
function tableRows(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter((line) => line.trim().startsWith("|") && !/^\|[\s|:-]+\|$/.test(line.trim()))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim()),
    );
}

function headings(markdown: string): string[] {
  return markdown.split("\n").filter((line) => /^#{1,6} /.test(line));
}

describe("svc parse, files and datasets against a real server", () => {
  let server: TestServer;
  let env: Record<string, string>;
  let dir: string;
  let paragraphs: string[];
  let pagedText: string;
  before(async () => {
    server = await startTestServer(
      {},
      { documents: { urlGuard: { allowPrivate: (a) => a.startsWith("127.") } } },
    );
    env = { SVC_API_URL: server.url, SERVICE_API_KEY: server.apiKey, SVC_DATA_DIR: "/nonexistent" };
    dir = await mkdtemp(path.join(tmpdir(), "svc-cli-docs-"));
    const wiki = await readFile(source("wiki.md"), "utf8");
    paragraphs = wiki
      .split("\n\n")
      .filter((p) => !p.startsWith("#"))
      .slice(0, 3);
    pagedText = paragraphs.join("\f");
    await writeFile(path.join(dir, "ibm.txt"), pagedText);
    await writeFile(path.join(dir, "fake.pdf"), "%PDF-1.7\nnot a PDF anyone can read");
  });
  after(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("a markdown file prints as markdown: its headings and its table", async () => {
    const duck = await readFile(source("duck.md"), "utf8");
    const run = await svc(["parse", source("duck.md")], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "", "no progress display when stderr is not a terminal");
    assert.deepEqual(headings(run.stdout), ["# Swimming in the lake", "## Let’s swim!", "## Let’s eat"]);
    assert.deepEqual(tableRows(run.stdout), tableRows(duck));
    assert.equal(tableRows(duck).length, 4);
    assert.ok(run.stdout.endsWith("```\n"));

    const explicit = await svc(["parse", source("duck.md"), "--markdown"], env);
    assert.equal(explicit.stdout, run.stdout);
    const html = await svc(["parse", source("ending_with_table.md"), "--tables", "html"], env);
    assert.equal(html.code, 0, html.stderr);
    assert.match(html.stdout, /<table>[\s\S]*<td>Scrooge McDuck<\/td>/);
  });

  test("--json prints the ParseResult; --read starts a read job", async () => {
    const run = await svc(["parse", source("wiki.md"), "--json", "--read", "--chunking", "section"], env);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.status, "successful");
    assert.match(result.parse_id, /^parse_/);
    assert.equal(result.structured_data, undefined, "a read job has no extraction fields");
    const wikiHeadings = headings(await readFile(source("wiki.md"), "utf8"));
    assert.deepEqual(
      result.chunks.map((c: { content: string }) => c.content.split("\n")[0]),
      wikiHeadings,
    );
  });

  test("--pages on a text with form feeds keeps those pages", async () => {
    const file = path.join(dir, "ibm.txt");
    const json = await svc(["parse", file, "--pages", "2", "--chunking", "page", "--json"], env);
    assert.equal(json.code, 0, json.stderr);
    const result = JSON.parse(json.stdout);
    assert.equal(result.total_pages, 3);
    assert.deepEqual(result.chunks, [{ page_number: 2, content: paragraphs[1] }]);

    const markdown = await svc(["parse", file, "--pages", "1,3"], env);
    assert.equal(markdown.code, 0, markdown.stderr);
    assert.equal(markdown.stdout, `${paragraphs[0]}\n\n${paragraphs[2]}\n`);
  });

  test("'-' sends text on stdin as raw_text, and uploads what is not text", async () => {
    const duck = await readFile(source("duck.md"), "utf8");
    const filesBefore = JSON.parse((await svc(["files", "list", "--all", "--json"], env)).stdout).length;
    const run = await svc(["parse", "-", "--mime", "text/markdown"], env, duck);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(tableRows(run.stdout), tableRows(duck));
    const plain = await svc(["parse", "-", "--pages", "3"], env, pagedText);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, `${paragraphs[2]}\n`);
    const filesBetween = JSON.parse((await svc(["files", "list", "--all", "--json"], env)).stdout).length;
    assert.equal(filesBetween, filesBefore, "text on stdin is raw_text, not an upload");

    const pdf = await svc(["parse", "-", "--mime", "application/pdf"], env, "%PDF-1.7\nbytes");
    assert.equal(pdf.code, 1);
    assert.match(pdf.stderr, /failed: INVALID_FILE: The PDF is damaged or truncated/);
    const files = JSON.parse((await svc(["files", "list", "--json", "--limit", "1"], env)).stdout);
    assert.equal(files[0].file_name, "stdin");
    assert.equal(files[0].mime_type, "application/pdf");
  });

  test("a failing job exits 1 with the reason; a refused request exits 1 with its code", async () => {
    const pdf = await svc(["parse", path.join(dir, "fake.pdf")], env);
    assert.equal(pdf.code, 1);
    assert.equal(pdf.stdout, "");
    assert.match(pdf.stderr, /^svc: parse parse_\S+ failed: INVALID_FILE: The PDF is damaged or truncated/);
    const pdfJson = await svc(["parse", path.join(dir, "fake.pdf"), "--json"], env);
    assert.equal(pdfJson.code, 1);
    assert.equal(JSON.parse(pdfJson.stdout).status, "failure");

    const past = await svc(["parse", path.join(dir, "ibm.txt"), "--pages", "2-9"], env);
    assert.equal(past.code, 1);
    assert.match(past.stderr, /failed: INVALID_PAGE_RANGE: .*has 3 pages/);
    const reversed = await svc(["parse", "-", "--pages", "3-1"], env, "text");
    assert.equal(reversed.code, 1);
    assert.match(reversed.stderr, /\(INVALID_PAGE_RANGE\)/);
    const missing = await svc(["parse", path.join(dir, "nope.md")], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /ENOENT/);

    for (const args of [
      ["parse"],
      ["parse", "a.md", "--json", "--markdown"],
      ["parse", "a.md", "--chunking", "paragraph"],
      ["parse", "a.md", "--dataset", "x", "--read"],
      ["parse", "a.md", "b.md"],
    ]) {
      assert.equal((await svc(args, env)).code, 2, args.join(" "));
    }
  });

  test("a URL is parsed from file_url", async () => {
    const wiki = await readFile(source("wiki.md"));
    const origin = http.createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/markdown" }).end(wiki);
    });
    origin.listen(0, "127.0.0.1");
    await once(origin, "listening");
    try {
      const port = (origin.address() as { port: number }).port;
      const countFiles = async () =>
        JSON.parse((await svc(["files", "list", "--all", "--json"], env)).stdout).length;
      const filesBefore = await countFiles();
      const run = await svc(["parse", `http://127.0.0.1:${port}/docs/wiki.md`], env);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(headings(run.stdout), headings(wiki.toString("utf8")));
      assert.equal(await countFiles(), filesBefore, "a URL is fetched by the server, not uploaded");
    } finally {
      origin.closeAllConnections();
      await new Promise((r) => origin.close(r));
    }
  });

  test("files upload, list, get, delete", async () => {
    const up = await svc(["files", "upload", source("mixed.md"), "--label", "k=v", "--json"], env);
    assert.equal(up.code, 0, up.stderr);
    const { file_id } = JSON.parse(up.stdout);
    assert.match(file_id, /^file_/);
    const list = await svc(["files", "list"], env);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^FILE_ID\s+FILE_NAME\s+MIME_TYPE/);
    assert.match(list.stdout, new RegExp(`${file_id}\\s+mixed\\.md\\s+text/markdown`));
    const paged = await svc(["files", "list", "--limit", "1"], env);
    assert.match(paged.stderr, /^more: svc files list --cursor \S+/);
    const get = await svc(["files", "get", file_id], env);
    assert.match(get.stdout, /file_name\s+mixed\.md/);
    assert.match(get.stdout, /labels\s+\{"k":"v"\}/);
    assert.equal(JSON.parse((await svc(["files", "get", file_id, "--json"], env)).stdout).file_id, file_id);
    assert.equal((await svc(["files", "delete", file_id], env)).code, 0);
    const gone = await svc(["files", "get", file_id], env);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /ENTITY_NOT_FOUND/);
  });

  test("datasets: create, parse into one by name, get with analytics, data, update, delete", async () => {
    const created = await svc(
      ["datasets", "create", "cli-notes", "--description", "docling md", "--chunking", "section"],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^created dataset cli-notes \(dataset_\S+\)/);
    assert.equal((await svc(["datasets", "create", "cli-notes"], env)).code, 1);

    const parsed = await svc(["parse", source("mixed.md"), "--dataset", "cli-notes", "--json"], env);
    assert.equal(parsed.code, 0, parsed.stderr);
    const result = JSON.parse(parsed.stdout);
    assert.match(result.dataset_id, /^dataset_/);
    assert.ok(result.chunks.length > 1, "the dataset's section chunking applies");

    const got = await svc(["datasets", "get", "cli-notes", "--analytics"], env);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /chunking\s+section/);
    assert.match(got.stdout, /jobs\s+pending 0, processing 0, successful 1, error 0/);
    const data = await svc(["datasets", "data", "cli-notes", "--json"], env);
    assert.deepEqual(
      JSON.parse(data.stdout).map((r: { parse_id: string }) => r.parse_id),
      [result.parse_id],
    );
    const table = await svc(["datasets", "data", result.dataset_id], env);
    assert.match(table.stdout, new RegExp(`${result.parse_id}\\s+successful\\s+1/1`));
    const list = await svc(["datasets", "list", "--all", "--json"], env);
    assert.ok(JSON.parse(list.stdout).some((d: { name: string }) => d.name === "cli-notes"));

    const updated = await svc(
      ["datasets", "update", "cli-notes", "--name", "cli-notes-2", "--tables", "markdown", "--json"],
      env,
    );
    assert.equal(updated.code, 0, updated.stderr);
    const dataset = JSON.parse(updated.stdout);
    assert.equal(dataset.name, "cli-notes-2");
    assert.equal(dataset.parsing_options.table_output_mode, "markdown");
    assert.equal(dataset.parsing_options.chunking_strategy, "section", "options not named keep their values");

    assert.equal((await svc(["datasets", "delete", "cli-notes-2"], env)).code, 0);
    const gone = await svc(["datasets", "get", result.dataset_id], env);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /ENTITY_NOT_FOUND/);
    const noDataset = await svc(["parse", source("mixed.md"), "--dataset", "cli-notes-2"], env);
    assert.equal(noDataset.code, 1);
    assert.match(noDataset.stderr, /ENTITY_NOT_FOUND/);
  });
});
