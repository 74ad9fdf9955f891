import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

describe("documents files API", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    server = await startTestServer({}, { documents: { maxFileBytes: 64 * 1024, workers: 0 } });
    api = documentsApi(server);
  });
  after(() => server.stop());

  test("upload → metadata → list → delete", async () => {
    const uploaded = await api.upload("# Notes\n\nhello", "notes.md", { labels: { team: "a" } });
    assert.equal(uploaded.status, 200);
    assert.match(uploaded.body.file_id, /^file_[a-z2-7]{26}$/);
    const meta = await api.expect(200, "GET", `/documents/v2/files/${uploaded.body.file_id}/metadata`);
    assert.deepEqual(meta, {
      file_id: uploaded.body.file_id,
      file_name: "notes.md",
      mime_type: "text/markdown",
      file_size: 14,
      checksum_sha256: createHash("sha256").update("# Notes\n\nhello").digest("hex"),
      created_at: uploaded.body.created_at,
      labels: { team: "a" },
      id: uploaded.body.file_id,
      name: "notes.md",
      fileSize: 14,
      mimeType: "text/markdown",
      createdAt: uploaded.body.created_at,
      updatedAt: uploaded.body.created_at,
    });
    await api.expect(204, "DELETE", `/documents/v2/files/${uploaded.body.file_id}`);
    await api.expect(
      404,
      "GET",
      `/documents/v2/files/${uploaded.body.file_id}/metadata`,
      undefined,
      "ENTITY_NOT_FOUND",
    );
    await api.expect(
      404,
      "DELETE",
      `/documents/v2/files/${uploaded.body.file_id}`,
      undefined,
      "ENTITY_NOT_FOUND",
    );
  });

  test("the MIME type comes from a specific Content-Type, else the extension, else octet-stream", async () => {
    const cases: [string, string, string][] = [
      ["a.txt", "", "text/plain"],
      ["a.md", "text/plain", "text/markdown"],
      ["data.bin", "application/pdf", "application/pdf"],
      ["noext", "", "application/octet-stream"],
    ];
    for (const [name, type, expected] of cases) {
      const { body } = await api.upload("x", name, { type });
      const meta = await api.expect(200, "GET", `/documents/v2/files/${body.file_id}/metadata`);
      assert.equal(meta.mime_type, expected, name);
    }
  });

  test("lists newest first with cursor paging", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.upload(`file ${i}`, `p${i}.txt`)).body.file_id);
    const first = await api.expect(200, "GET", "/documents/v2/files?limit=2");
    assert.deepEqual(
      first.items.map((f: { file_id: string }) => f.file_id),
      [ids[2], ids[1]],
    );
    assert.equal(first.has_more, true);
    const second = await api.expect(200, "GET", `/documents/v2/files?limit=2&cursor=${first.next_cursor}`);
    assert.equal(second.items[0].file_id, ids[0]);
    // The Python SDK reads the paging fields in camelCase: both spellings carry the same values.
    assert.deepEqual(
      [first.hasMore, first.nextCursor, first.prevCursor],
      [first.has_more, first.next_cursor, first.prev_cursor ?? null],
    );
    const older = await api.expect(
      200,
      "GET",
      `/documents/v2/files?cursor=${first.next_cursor}&direction=next`,
    );
    assert.equal(older.items[0].file_id, ids[0]);
    await api.expect(400, "GET", "/documents/v2/files?cursor=bogus", undefined, "INVALID_CURSOR");
    await api.expect(400, "GET", "/documents/v2/files?limit=0", undefined, "INVALID_QUERY_PARAMS");
  });

  test("a file over the limit is a 413 FILE_TOO_LARGE, streamed or declared", async () => {
    const big = new Uint8Array(64 * 1024 + 1).fill(97);
    const streamed = await api.upload(big, "big.txt");
    assert.equal(streamed.status, 413, JSON.stringify(streamed.body));
    assert.equal(streamed.body.code, "INVALID_FILE");
    assert.equal(streamed.body.details.code, "FILE_TOO_LARGE");
    const declared = await fetch(`${server.url}/documents/v2/files`, {
      method: "PUT",
      headers: {
        authorization: api.authorization,
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(10 * 1024 * 1024),
      },
      body: "--x--",
    }).catch((error) => error as Error);
    if (!(declared instanceof Error)) {
      assert.equal(declared.status, 413);
    }
    const exact = await api.upload(new Uint8Array(64 * 1024).fill(97), "exact.txt");
    assert.equal(exact.status, 200);
  });

  test("bad uploads are 400s that say what is wrong", async () => {
    const send = async (body: string | FormData, type?: string) => {
      const response = await fetch(`${server.url}/documents/v2/files`, {
        method: "PUT",
        headers: { authorization: api.authorization, ...(type ? { "content-type": type } : {}) },
        body,
      });
      // biome-ignore lint/suspicious/noExplicitAny: test bodies are read by shape.
      const json: any = await response.json();
      return { status: response.status, body: json };
    };
    const json = await send("{}", "application/json");
    assert.equal(json.status, 400);
    const noFile = new FormData();
    noFile.set("labels", "{}");
    assert.equal((await send(noFile)).body.code, "INVALID_MULTIPART");
    const wrongPart = new FormData();
    wrongPart.set("document", new Blob(["x"]), "a.txt");
    assert.match((await send(wrongPart)).body.message, /Unexpected file part "document"/);
    const badLabels = new FormData();
    badLabels.set("file", new Blob(["x"]), "a.txt");
    badLabels.set("labels", "[1]");
    assert.match((await send(badLabels)).body.message, /labels/);
    const empty = new FormData();
    empty.set("file", new Blob([]), "a.txt");
    assert.equal((await send(empty)).body.code, "INVALID_FILE");
    const broken = await send(
      '--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
      "multipart/form-data; boundary=b",
    );
    assert.equal(broken.body.code, "INVALID_MULTIPART");
    const bytesPart = new FormData();
    bytesPart.set("file_bytes", new Blob(["x"]), "b.txt");
    assert.equal((await send(bytesPart)).status, 200);
  });

  test("files are the project's own: another key gets 404", async () => {
    const { body } = await api.upload("x", "mine.txt");
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "other-files");
    const key = await server.store.apiKeys.create({ projectId: other.id });
    const response = await fetch(`${server.url}/documents/v2/files/${body.file_id}/metadata`, {
      headers: { authorization: `Bearer ${key.key}` },
    });
    assert.equal(response.status, 404);
  });
});

describe("documents files API on PostgreSQL", () => {
  const baseUrl = process.env.SVC_TEST_DATABASE_URL;
  test("uploads go to the database's blob tables and parse from there", {
    skip: !baseUrl && "SVC_TEST_DATABASE_URL is not set",
  }, async () => {
    const schema = `svc_test_${process.pid}_${randomBytes(6).toString("hex")}`;
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(sql);
      } finally {
        await client.end();
      }
    };
    await admin(`CREATE SCHEMA ${schema}`);
    const url = new URL(baseUrl as string);
    url.searchParams.set("options", `-c search_path=${schema}`);
    const server = await startTestServer(
      { databaseUrl: url.toString() },
      { documents: { workers: 1, pollIntervalMs: 50 } },
    );
    try {
      const api = documentsApi(server);
      const content = `# Big\n\n${"word ".repeat(300_000)}`;
      const { status, body } = await api.upload(content, "big.md");
      assert.equal(status, 200);
      const [blobs] = await server.store.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM blob_chunks");
      assert.equal(Number(blobs.n), 2);
      const job = await api.expect(200, "POST", "/documents/v2/parse", { file_id: body.file_id });
      const result = await api.finished(job.parse_id);
      assert.equal(result.status, "successful", result.error ?? "");
      assert.equal(result.chunks?.[0].content.length, content.trimEnd().length);
      await api.expect(204, "DELETE", `/documents/v2/files/${body.file_id}`);
      const [left] = await server.store.db.query<{ n: number }>("SELECT COUNT(*) AS n FROM blob_chunks");
      assert.equal(Number(left.n), 0);
    } finally {
      await server.stop();
      await admin(`DROP SCHEMA ${schema} CASCADE`);
    }
  });
});
