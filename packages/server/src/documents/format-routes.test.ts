import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

/** An email with a CSV attachment, in CRLF lines as mail is sent. */
const EMAIL = [
  "From: =?utf-8?Q?Z=C3=B6e?= <zoe@example.org>",
  "To: team@example.org",
  "Subject: Weekly numbers",
  "Date: Fri, 8 Mar 2024 16:00:00 +0000",
  "MIME-Version: 1.0",
  'Content-Type: multipart/mixed; boundary="part"',
  "",
  "--part",
  "Content-Type: text/plain; charset=utf-8",
  "Content-Transfer-Encoding: quoted-printable",
  "",
  "Hello team, the numbers are attached =E2=80=94 see the table.",
  "--part",
  'Content-Type: text/csv; name="numbers.csv"',
  'Content-Disposition: attachment; filename="numbers.csv"',
  "Content-Transfer-Encoding: base64",
  "",
  Buffer.from("week,orders\n9,120\n10,135\n").toString("base64"),
  "--part--",
  "",
].join("\r\n");

describe("documents API: emails", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 1, pollIntervalMs: 50, testHooks: true } });
    api = documentsApi(server);
  });
  after(() => server.stop());

  test("an uploaded .eml is parsed: header block, decoded body, the attachment as a table on its own page", async () => {
    const { status, body: file } = await api.upload(new TextEncoder().encode(EMAIL), "weekly.eml");
    assert.equal(status, 200, JSON.stringify(file));
    const job = await api.expect(200, "POST", "/documents/v2/parse", { file_id: file.file_id });
    const result = await api.finished(job.parse_id);
    assert.equal(result.status, "successful", result.error ?? "");
    assert.equal(result.total_pages, 2);
    const text = JSON.stringify(result.chunks);
    assert.match(text, /Weekly numbers/);
    assert.match(text, /From: Zöe <zoe@example\.org>/);
    assert.match(text, /the numbers are attached — see the table/);
    assert.doesNotMatch(text, /Content-Transfer-Encoding|base64|=E2=80=94/);
    const fragments = result.pages?.[1]?.page_fragments ?? [];
    const table = fragments.find((f: { fragment_type: string }) => f.fragment_type === "table");
    assert.ok(table, JSON.stringify(fragments));
    assert.match(JSON.stringify(table.content), /<td>10<\/td><td>135<\/td>/);
  });

  test("an encrypted email fails with a reason a person understands", async () => {
    const encrypted = [
      "From: a@example.org",
      "Subject: Secret",
      "MIME-Version: 1.0",
      'Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"',
      "Content-Transfer-Encoding: base64",
      "",
      "MIAGCSqGSIb3DQEHA6CAMIACAQAxggEw",
      "",
    ].join("\r\n");
    const { body: file } = await api.upload(new TextEncoder().encode(encrypted), "secret.eml");
    const job = await api.expect(200, "POST", "/documents/v2/parse", { file_id: file.file_id });
    const result = await api.finished(job.parse_id);
    assert.equal(result.status, "failure");
    assert.match(result.error ?? "", /encrypted \(S\/MIME\)/);
  });
});
