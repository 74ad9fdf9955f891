import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { parseDocument } from "../index.ts";
import { fontFamilyEnv } from "../libreoffice/font-families.ts";
import { officeAvailable } from "../libreoffice/pool.ts";
import type { DetectedTable } from "../paginated/geometry.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { inReadingDirection, isRightToLeft } from "./direction.ts";
import { grid } from "./test-geometry.ts";

const run = promisify(execFile);
const NO_OFFICE = officeAvailable() ? false : "LibreOffice is not installed";

/** A detected table of rows of texts, numbered left to right as on the page; "" is a slot a span covers. */
function detected(
  rows: string[][],
  spans: { row: number; col: number; colSpan: number }[] = [],
): DetectedTable {
  const cellBox = { x1: 0, y1: 0, x2: 10, y2: 10 };
  const cells = rows.flatMap((texts, row) =>
    texts.flatMap((text, col) => {
      const colSpan = spans.find((s) => s.row === row && s.col === col)?.colSpan ?? 1;
      return text === ""
        ? []
        : [{ row, col, rowSpan: 1, colSpan, text, box: cellBox, columnHeader: row === 0, rowHeader: false }];
    }),
  );
  const box = { x1: 0, y1: 0, x2: 100, y2: 100 };
  return { box, numRows: rows.length, numCols: rows[0].length, cells, method: "ruled" };
}

test("a table in a right-to-left script reads its columns from the right, spans included", () => {
  // As drawn on the page, left to right: values, then labels; the total spans the two left columns.
  const table = detected(
    [
      ["הוצאות", "הכנסות", "שנה"],
      ["80", "120", "2021"],
      ["175", "", "סך הכל"],
    ],
    [{ row: 2, col: 0, colSpan: 2 }],
  );
  assert.equal(isRightToLeft(table), true);
  const read = inReadingDirection(table);
  assert.deepEqual(grid(read), [
    ["שנה", "הכנסות", "הוצאות"],
    ["2021", "120", "80"],
    ["סך הכל", "175", ""],
  ]);
  const total = read.cells.find((cell) => cell.text === "175");
  assert.deepEqual([total?.col, total?.colSpan], [1, 2]);
  // Cells come out row by row, each row from its first column.
  assert.deepEqual(
    read.cells.map((cell) => [cell.row, cell.col]),
    [
      [0, 0],
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 1],
      [1, 2],
      [2, 0],
      [2, 1],
    ],
  );
});

test("digits do not make a table right-to-left, and a Latin table keeps its order", () => {
  const latin = detected([
    ["Year", "שנה"],
    ["2021", "2022"],
    ["Income", "120"],
  ]);
  assert.equal(isRightToLeft(latin), false);
  assert.equal(inReadingDirection(latin), latin);
  // Mostly Hebrew letters, however many digits: right to left.
  assert.equal(isRightToLeft(detected([["שנה", "12345678"]])), true);
});

test("a right-to-left table made with LibreOffice reads first column first in markdown and HTML", {
  skip: NO_OFFICE,
  timeout: 240_000,
}, async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "rtl-table-"));
  try {
    const html = [
      '<html><body dir="rtl"><p>דוח שנתי של החברה</p>',
      '<table dir="rtl" border="1" cellpadding="4">',
      "<tr><th>שנה</th><th>הכנסות</th><th>הוצאות</th></tr>",
      "<tr><td>2021</td><td>120</td><td>80</td></tr>",
      "<tr><td>2022</td><td>150</td><td>95</td></tr>",
      '<tr><td colspan="2">סך הכל לשנתיים</td><td>175</td></tr>',
      "</table></body></html>",
    ].join("\n");
    await writeFile(path.join(dir, "report.html"), html);
    await run(
      "soffice",
      [
        `-env:UserInstallation=file://${dir}/profile`,
        "--infilter=HTML (StarWriter)",
        "--headless",
        "--convert-to",
        "pdf:writer_pdf_Export",
        "--outdir",
        dir,
        path.join(dir, "report.html"),
      ],
      { timeout: 200_000, env: { ...fontFamilyEnv("DejaVu Sans", path.join(dir, "font")), HOME: dir } },
    );
    const bytes = new Uint8Array(await readFile(path.join(dir, "report.pdf")));
    const options = { parsing: { table_output_mode: "markdown" as const } };
    const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options });
    assert.match(result.markdown, /\| שנה \| הכנסות \| הוצאות \|/);
    assert.match(result.markdown, /\| 2021 \| 120 \| 80 \|/);
    const table = result.pages[0].page_fragments?.find((fragment) => fragment.fragment_type === "table");
    const tableHtml = table && "html" in table.content ? table.content.html : "";
    assert.match(tableHtml ?? "", /<td colspan="2">סך הכל לשנתיים<\/td><td>175<\/td>/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("public: right_to_left_03 lists each row's label before its value", { skip: NO_CORPUS }, async () => {
  const bytes = new Uint8Array(
    await readFile(corpusPath("docling/tests/data/pdf/sources/right_to_left_03.pdf")),
  );
  const options = { parsing: { table_output_mode: "markdown" as const } };
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options });
  assert.match(result.markdown, /\| شماره استاندارد ملی \| 20300 \|/);
  assert.match(result.markdown, /\| شماره جلسه کميته عرضه \| 436 \|/);
  // The heading's last word is cut between two text items, its lam-alef in the second: still in order.
  assert.match(result.markdown, /استاندارد کالا\n/);
  assert.doesNotMatch(result.markdown, /کاال/);
});
