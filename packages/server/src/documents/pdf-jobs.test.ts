import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { startTestServer, type TestServer } from "../testing.ts";
import { documentsApi } from "./api.testing.ts";

/** A two-page PDF: a title, a paragraph and a ruled 3 × 3 table on page 1, a paragraph on page 2. */
async function reportPdf(): Promise<Uint8Array<ArrayBuffer>> {
  const pdf = await PDFDocument.create();
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const first = pdf.addPage([612, 792]);
  first.drawText("Quarterly Report", { x: 72, y: 700, size: 24, font: bold });
  first.drawText("Sales grew in every region this quarter.", { x: 72, y: 660, size: 11, font: regular });
  const rows = [
    ["Region", "Q1", "Q2"],
    ["North", "120", "135"],
    ["South", "98", "110"],
  ];
  const [left, top, width, height] = [72, 620, 150, 22];
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      const font = r === 0 ? bold : regular;
      first.drawText(cell, { x: left + c * width + 6, y: top - (r + 1) * height + 7, size: 11, font });
    });
  });
  for (let r = 0; r <= rows.length; r++) {
    first.drawLine({
      start: { x: left, y: top - r * height },
      end: { x: left + 3 * width, y: top - r * height },
    });
  }
  for (let c = 0; c <= 3; c++) {
    first.drawLine({
      start: { x: left + c * width, y: top },
      end: { x: left + c * width, y: top - 3 * height },
    });
  }
  const second = pdf.addPage([612, 792]);
  second.drawText("The outlook for next quarter is steady.", { x: 72, y: 700, size: 11, font: regular });
  return new Uint8Array(await pdf.save());
}

describe("PDF parse jobs through the API", () => {
  let server: TestServer;
  let api: ReturnType<typeof documentsApi>;
  before(async () => {
    server = await startTestServer({}, { documents: { workers: 1, pollIntervalMs: 50 } });
    api = documentsApi(server);
  });
  after(() => server.stop());

  test("an uploaded PDF parses into pages with fragments, a table and markdown", async () => {
    // No extension and a vague type: the engine tells a PDF from its first bytes.
    const upload = await api.upload(await reportPdf(), "report", { type: "application/octet-stream" });
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
      parsing_options: { table_output_mode: "markdown", chunking_strategy: "page" },
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", JSON.stringify(result.error));
    assert.equal(result.total_pages, 2);
    assert.equal(result.parsed_pages_count, 2);
    const fragments = result.pages?.[0].page_fragments ?? [];
    const types = fragments.map((f) => f.fragment_type);
    assert.ok(types.includes("title") || types.includes("section_header"), types.join(","));
    const table = fragments.find((f) => f.fragment_type === "table");
    assert.ok(table, types.join(","));
    const content = table.content as { content: string; html: string; cells: unknown[] };
    assert.match(content.content, /\| Region \| Q1 \| Q2 \|/);
    assert.match(content.html, /<th>Region<\/th>/);
    assert.equal(content.cells.length, 9);
    for (const fragment of fragments) assert.ok(fragment.bbox, `${fragment.fragment_type} has a box`);
    assert.deepEqual(
      result.chunks?.map((chunk) => chunk.page_number),
      [1, 2],
    );
    assert.match(result.chunks?.[1].content ?? "", /outlook for next quarter/);
  });

  test("page_range reads only the pages asked for", async () => {
    const upload = await api.upload(await reportPdf(), "report.pdf");
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
      page_range: "2",
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "successful", JSON.stringify(result.error));
    assert.equal(result.total_pages, 2);
    assert.equal(result.parsed_pages_count, 1);
    assert.deepEqual(
      result.pages?.map((page) => page.page_number),
      [2],
    );
  });

  test("a damaged PDF fails its own job with a reason, and the worker goes on", async () => {
    const good = await reportPdf();
    const upload = await api.upload(good.slice(0, good.length / 2), "broken.pdf");
    const { parse_id } = await api.expect(200, "POST", "/documents/v2/parse", {
      file_id: upload.body.file_id,
    });
    const result = await api.finished(parse_id, 60_000);
    assert.equal(result.status, "failure");
    assert.match(String(result.error), /PDF/);
    const next = await api.upload(good, "again.pdf");
    const again = await api.expect(200, "POST", "/documents/v2/parse", { file_id: next.body.file_id });
    assert.equal((await api.finished(again.parse_id, 60_000)).status, "successful");
  });
});
