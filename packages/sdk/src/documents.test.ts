import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import http from "node:http";
import type { LookupFunction } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { type ParseResult, verifyWebhook } from "@svc/contract";
import { startTestServer, type TestServer } from "@svc/server";
import { Client } from "./client.ts";
import { parseResultMarkdown } from "./documents.ts";
import { InvalidRequestError, NotFoundError, SvcError } from "./errors.ts";

/** Markdown sources of the docling test corpus (read-only). */
const SOURCES = "/work/shared/corpus/docling/tests/data/md/sources";
const source = (name: string) => path.join(SOURCES, name);

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

/** The headings of a markdown text, `#` marks included. */
function headings(markdown: string): string[] {
  return markdown.split("\n").filter((line) => /^#{1,6} /.test(line));
}

/** Maps the name of the webhook receiver to loopback; no other name resolves (no DNS in tests). */
const receiverLookup: LookupFunction = (hostname, options, callback) => {
  if (hostname !== "receiver.test") {
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    process.nextTick(callback, error, "", 0);
  } else if (options.all) process.nextTick(callback, null, [{ address: "127.0.0.1", family: 4 }]);
  else process.nextTick(callback, null, "127.0.0.1", 4);
};

describe("SDK documents against a real server", () => {
  let server: TestServer;
  let client: Client;
  before(async () => {
    server = await startTestServer(
      {},
      {
        documents: {
          testHooks: true,
          urlGuard: { lookup: receiverLookup, allowPrivate: (a) => a.startsWith("127.") },
        },
      },
    );
    client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  });
  after(() => server.stop());

  test("upload from a path, bytes and streams; metadata matches the bytes; list pages and iterates", async () => {
    const wiki = source("wiki.md");
    const bytes = await readFile(wiki);
    const uploaded = await client.documents.files.upload(wiki, { labels: { corpus: "docling" } });
    assert.match(uploaded.file_id, /^file_/);
    const metadata = await client.documents.files.get(uploaded.file_id);
    assert.equal(metadata.file_name, "wiki.md");
    assert.equal(metadata.mime_type, "text/markdown");
    assert.equal(metadata.file_size, (await stat(wiki)).size);
    assert.equal(metadata.checksum_sha256, createHash("sha256").update(bytes).digest("hex"));
    assert.deepEqual(metadata.labels, { corpus: "docling" });

    const fromBytes = await client.documents.files.upload(new Uint8Array(bytes), {
      fileName: 'wiki copy ü"1".md',
    });
    const fromNodeStream = await client.documents.files.upload(createReadStream(wiki), {
      fileName: "node-stream.md",
    });
    const fromWebStream = await client.documents.files.upload(
      Readable.toWeb(createReadStream(wiki)) as ReadableStream<Uint8Array>,
      { fileName: "web-stream.txt", contentType: "text/markdown" },
    );
    for (const { file_id } of [fromBytes, fromNodeStream, fromWebStream]) {
      const meta = await client.documents.files.get(file_id);
      assert.equal(meta.checksum_sha256, metadata.checksum_sha256, file_id);
      assert.equal(meta.mime_type, "text/markdown", "the declared type wins over the .txt name");
    }
    assert.equal((await client.documents.files.get(fromBytes.file_id)).file_name, "wiki copy ü%221%22.md");

    await assert.rejects(
      client.documents.files.upload(path.join(SOURCES, "missing.md")),
      (e) => e instanceof SvcError && e.code === "INVALID_FILE" && /ENOENT/.test(e.message),
    );
    await assert.rejects(
      client.documents.files.upload(new Uint8Array(0), { fileName: "empty.txt" }),
      (e) => e instanceof InvalidRequestError && e.code === "INVALID_FILE",
    );

    const first = await client.documents.files.list({ limit: 1 });
    assert.deepEqual(
      first.items.map((f) => f.file_id),
      [fromWebStream.file_id],
    );
    assert.equal(first.has_more, true);
    const second = await client.documents.files.list({ limit: 1, cursor: first.next_cursor ?? undefined });
    assert.deepEqual(
      second.items.map((f) => f.file_id),
      [fromNodeStream.file_id],
    );
    const all: string[] = [];
    for await (const file of client.documents.files.iterate({ limit: 2 })) all.push(file.file_id);
    assert.deepEqual(
      all,
      [fromWebStream, fromNodeStream, fromBytes, uploaded].map((f) => f.file_id),
    );

    await client.documents.files.delete(fromBytes.file_id);
    await assert.rejects(client.documents.files.get(fromBytes.file_id), NotFoundError);
    await assert.rejects(client.documents.files.delete(fromBytes.file_id), NotFoundError);
  });

  test("parse, then wait on the event stream: headings and the table of the source come back as markdown", async () => {
    const duck = await readFile(source("duck.md"), "utf8");
    const { file_id } = await client.documents.files.upload(source("duck.md"));
    const job = await client.documents.parse({
      file_id,
      parsing_options: { table_output_mode: "markdown" },
      labels: { run: "sdk" },
    });
    assert.match(job.parse_id, /^parse_/);
    const updates: ParseResult[] = [];
    const result = await client.documents.wait(job.parse_id, { onUpdate: (r) => updates.push(r) });
    assert.equal(result.status, "successful", result.error ?? "");
    assert.equal(updates.at(-1)?.status, "successful");
    assert.ok(updates.every((u) => u.parse_id === job.parse_id));
    assert.deepEqual(result.labels, { run: "sdk" });
    const markdown = parseResultMarkdown(result);
    assert.deepEqual(headings(markdown), ["# Swimming in the lake", "## Let’s swim!", "## Let’s eat"]);
    assert.deepEqual(tableRows(markdown), tableRows(duck));
    assert.equal(tableRows(duck).length, 4, "the source's table: a header and three rows");
    assert.ok(markdown.includes("- Paddle about\n- Enjoy summer warmth"));

    const polled = await client.documents.wait(job.parse_id, { stream: false });
    assert.deepEqual(polled, result);
  });

  test("wait follows the event stream in one request, and polls when asked to", async () => {
    const requests: { url: string; accept: string | null }[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      requests.push({ url: String(input), accept: new Headers(init?.headers).get("accept") });
      return realFetch(input, init);
    };
    try {
      const job = await client.documents.parse({ raw_text: "svc-test:sleep=400\n\nslow" });
      requests.length = 0;
      const statuses: string[] = [];
      const result = await client.documents.wait(job.parse_id, { onUpdate: (r) => statuses.push(r.status) });
      assert.equal(result.status, "successful");
      assert.deepEqual(requests, [
        { url: `${server.url}/documents/v2/parse/${job.parse_id}`, accept: "text/event-stream" },
      ]);
      assert.ok(statuses.includes("processing") || statuses.includes("pending"), statuses.join());
      assert.equal(statuses.at(-1), "successful");

      requests.length = 0;
      await client.documents.wait(job.parse_id, { stream: false });
      assert.deepEqual(
        requests.map((r) => r.accept),
        ["application/json"],
      );
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  test("parseFile: page_range on a text with form feeds keeps only those pages", async () => {
    const wiki = await readFile(source("wiki.md"), "utf8");
    const paragraphs = wiki
      .split("\n\n")
      .filter((p) => !p.startsWith("#"))
      .slice(0, 3);
    const text = paragraphs.join("\f");
    const updates: string[] = [];
    const result = await client.documents.parseFile(new TextEncoder().encode(text), {
      fileName: "ibm.txt",
      request: { page_range: "2-3", parsing_options: { chunking_strategy: "page" } },
      onUpdate: (r) => updates.push(r.status),
    });
    assert.equal(result.status, "successful", result.error ?? "");
    assert.equal(result.total_pages, 3);
    assert.equal(result.parsed_pages_count, 2);
    assert.deepEqual(result.chunks, [
      { page_number: 2, content: paragraphs[1] },
      { page_number: 3, content: paragraphs[2] },
    ]);
    assert.ok(!parseResultMarkdown(result).includes(paragraphs[0]));
    assert.equal(updates.at(-1), "successful");

    const past = await client.documents.parseFile(new TextEncoder().encode(text), {
      fileName: "ibm.txt",
      request: { page_range: "2-5" },
    });
    assert.equal(past.status, "failure");
    assert.match(past.error ?? "", /INVALID_PAGE_RANGE.*has 3 pages/);
  });

  test("read jobs, failing jobs, the job list with filters, and delete", async () => {
    const read = await client.documents.read({
      raw_text: await readFile(source("ending_with_table.md"), "utf8"),
      mime_type: "text/markdown",
      parsing_options: { table_output_mode: "markdown" },
    });
    const readResult = await client.documents.wait(read.parse_id);
    assert.equal(readResult.status, "successful");
    assert.equal(readResult.structured_data, undefined);
    assert.deepEqual(tableRows(parseResultMarkdown(readResult))[1], [
      "Scrooge McDuck",
      "Dagobert Duck",
      "Balthazar Picsou",
      "Paperone",
    ]);

    const pdf = await client.documents.parseFile(new TextEncoder().encode("%PDF-1.7\nnot really"), {
      fileName: "fake.pdf",
    });
    assert.equal(pdf.status, "failure");
    assert.match(pdf.error ?? "", /The PDF is damaged or truncated/);
    assert.equal(parseResultMarkdown(pdf), "");

    await assert.rejects(
      client.documents.parse({ raw_text: "x", page_range: "3-1" }),
      (e) => e instanceof InvalidRequestError && e.code === "INVALID_PAGE_RANGE",
    );

    const failures = await client.documents.listJobs({ status: "failure", filename: "fake.pdf" });
    assert.deepEqual(
      failures.items.map((r) => r.parse_id),
      [pdf.parse_id],
    );
    const seen: string[] = [];
    for await (const job of client.documents.iterateJobs({ limit: 1 })) seen.push(job.parse_id);
    assert.ok(seen.includes(read.parse_id) && seen.includes(pdf.parse_id));
    assert.equal(new Set(seen).size, seen.length);

    await client.documents.deleteJob(read.parse_id);
    await assert.rejects(client.documents.get(read.parse_id), NotFoundError);
    await assert.rejects(client.documents.wait(read.parse_id), NotFoundError);
  });

  test("wait gives up with TIMEOUT when the job runs longer", async () => {
    const slow = await client.documents.parse({ raw_text: "svc-test:sleep=1500\n\nslow" });
    for (const stream of [true, false]) {
      const started = Date.now();
      await assert.rejects(
        client.documents.wait(slow.parse_id, { timeoutMs: 150, stream }),
        (e) => e instanceof SvcError && e.code === "TIMEOUT" && /did not end within 150 ms/.test(e.message),
      );
      assert.ok(Date.now() - started < 1000);
    }
    assert.equal((await client.documents.wait(slow.parse_id)).status, "successful");
  });

  test("datasets: create, get by name with analytics, parse into it, list its data, update, delete", async () => {
    const created = await client.documents.datasets.create({
      name: "sdk-notes",
      description: "docling markdown",
      parsing_options: { chunking_strategy: "section", table_output_mode: "markdown" },
    });
    assert.match(created.dataset_id, /^dataset_/);
    await assert.rejects(
      client.documents.datasets.create({ name: "sdk-notes" }),
      (e) => e instanceof SvcError && e.code === "ENTITY_ALREADY_EXISTS" && e.status === 409,
    );
    const byName = await client.documents.datasets.get("sdk-notes");
    assert.equal(byName.dataset_id, created.dataset_id);
    assert.equal(byName.analytics, undefined);

    const { file_id } = await client.documents.files.upload(source("wiki.md"));
    const job = await client.documents.datasets.parse(created.dataset_id, { file_id, labels: { n: "1" } });
    const result = await client.documents.wait(job.parse_id);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.equal(result.dataset_id, created.dataset_id);
    const wikiHeadings = headings(await readFile(source("wiki.md"), "utf8"));
    assert.deepEqual(
      result.chunks?.map((c) => c.content.split("\n")[0]),
      wikiHeadings,
      "section chunks start at each heading of the source",
    );

    const withAnalytics = await client.documents.datasets.get("sdk-notes", { analytics: true });
    assert.deepEqual(withAnalytics.analytics, { pending: 0, processing: 0, successful: 1, error: 0 });
    const data = await client.documents.datasets.data(created.dataset_id);
    assert.deepEqual(
      data.items.map((r) => r.parse_id),
      [job.parse_id],
    );
    const iterated: string[] = [];
    for await (const r of client.documents.datasets.iterateData(created.dataset_id))
      iterated.push(r.parse_id);
    assert.deepEqual(iterated, [job.parse_id]);

    const renamed = await client.documents.datasets.update(created.dataset_id, { name: "sdk-notes-v2" });
    assert.equal(renamed.name, "sdk-notes-v2");
    assert.equal(renamed.parsing_options?.chunking_strategy, "section");
    assert.equal((await client.documents.datasets.list({ name: "sdk-notes-v2" })).items.length, 1);
    const names: string[] = [];
    for await (const d of client.documents.datasets.iterate()) names.push(d.name);
    assert.ok(names.includes("sdk-notes-v2") && !names.includes("sdk-notes"));

    await client.documents.datasets.delete(created.dataset_id);
    await assert.rejects(client.documents.datasets.get(created.dataset_id), NotFoundError);
    await assert.rejects(client.documents.datasets.get("sdk-notes-v2"), NotFoundError);
  });

  test("webhooks: create shows the secret once; deliveries of a job are signed with it; update, delete", async () => {
    const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
    const receiver = http.createServer(async (request, response) => {
      let body = "";
      for await (const chunk of request) body += chunk;
      received.push({ headers: request.headers, body });
      response.writeHead(204).end();
    });
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    const port = (receiver.address() as { port: number }).port;
    try {
      const created = await client.documents.webhooks.create({
        url: `http://receiver.test:${port}/hook`,
        events: ["document_ingestion.job.completed"],
        description: "sdk test",
      });
      assert.match(created.secret, /^whsec_/);
      const { secret, ...webhook } = created;
      assert.deepEqual(await client.documents.webhooks.get(created.webhook_id), webhook);
      const listed = await client.documents.webhooks.list();
      assert.deepEqual(
        listed.find((w) => w.webhook_id === created.webhook_id),
        webhook,
      );
      assert.ok(!JSON.stringify(listed).includes("whsec_"));

      const result = await client.documents.parseFile(source("mixed.md"));
      assert.equal(result.status, "successful");
      const deadline = Date.now() + 10_000;
      let deliveries = await client.documents.webhooks.deliveries(created.webhook_id);
      while (!deliveries.items.some((d) => d.job_id === result.parse_id) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        deliveries = await client.documents.webhooks.deliveries(created.webhook_id);
      }
      const delivery = deliveries.items.find((d) => d.job_id === result.parse_id);
      assert.ok(delivery, "the completed job was delivered");
      assert.equal(delivery.event, "document_ingestion.job.completed");
      assert.equal(delivery.succeeded, true);
      assert.equal(delivery.status_code, 204);
      const message = received.find((m) => JSON.parse(m.body).job_id === result.parse_id);
      assert.ok(message);
      assert.ok(verifyWebhook({ secret, headers: message.headers, body: message.body }));
      assert.ok(!verifyWebhook({ secret, headers: message.headers, body: `${message.body} ` }));
      const all = [];
      for await (const d of client.documents.webhooks.iterateDeliveries(created.webhook_id)) all.push(d);
      assert.ok(all.some((d) => d.delivery_id === delivery.delivery_id));

      const updated = await client.documents.webhooks.update(created.webhook_id, {
        events: ["document_ingestion.job.failed"],
        description: null,
      });
      assert.deepEqual(updated.events, ["document_ingestion.job.failed"]);
      assert.equal(updated.description, null);
      await assert.rejects(
        client.documents.webhooks.update(created.webhook_id, { enabled: false }),
        (e) => e instanceof InvalidRequestError && e.code === "INVALID_CONFIGURATION",
      );
      await client.documents.webhooks.delete(created.webhook_id);
      await assert.rejects(client.documents.webhooks.get(created.webhook_id), NotFoundError);
      await assert.rejects(client.documents.webhooks.delete(created.webhook_id), NotFoundError);
    } finally {
      receiver.closeAllConnections();
      await new Promise((r) => receiver.close(r));
    }
  });
});
