import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { renderTextPage } from "@svc/docparse/ocr-test-support";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

const run = promisify(execFile);
const TEXT = "Invoice for the harbour repairs, paid in full on the first of June.";

async function heicOf(png: Buffer): Promise<Uint8Array<ArrayBuffer> | null> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "svc-heic-job-"));
  try {
    await writeFile(path.join(dir, "in.png"), png);
    await run("heif-enc", ["-q", "85", path.join(dir, "in.png"), "-o", path.join(dir, "out.heic")]);
    return new Uint8Array(await readFile(path.join(dir, "out.heic")));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !process.env.CI) return null;
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("image parse jobs through the API", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 1, pollIntervalMs: 50 } });
    api = documentsApi(server);
  });
  after(() => server.stop());

  test("a HEIC photo parses with its text; a broken one fails its job with the reason; ocr_languages is checked", {
    timeout: 300_000,
  }, async (t) => {
    const bad = await api.call("POST", "/documents/v2/parse", {
      raw_text: "x",
      parsing_options: { ocr_languages: ["klingon"] },
    });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.match(JSON.stringify(bad.body), /ocr_languages/);

    const heic = await heicOf((await renderTextPage({ text: TEXT, heightIn: 3 })).png);
    if (!heic) {
      t.skip("heif-enc (libheif-examples) is missing");
      return;
    }
    const upload = await api.upload(heic, "photo.heic");
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
      parsing_options: { ocr_languages: ["eng"] },
    });
    const result = await api.finished(parse_id, 240_000);
    assert.equal(result.status, "successful", JSON.stringify(result.error));
    assert.match(
      result.pages?.map((p) => JSON.stringify(p.page_fragments)).join(" ") ?? "",
      /harbour repairs/,
    );

    const broken = await api.upload(heic.slice(0, heic.length / 3), "broken.heic");
    const failed = await api.expect(200, "POST", "/documents/v2/parse", { file_id: broken.body.file_id });
    const failure = await api.finished(failed.parse_id, 240_000);
    assert.equal(failure.status, "failure");
    assert.match(String(failure.error), /HEIC image could not be read/);
  });
});
