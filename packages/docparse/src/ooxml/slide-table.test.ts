import assert from "node:assert/strict";
import { test } from "node:test";
import { SLIDE_TABLES, type SlideTable, scoreSlideTables, slideTablesDeck } from "../eval/slide-tables.ts";
import { loadDocument, type TableItem } from "../index.ts";
import { pptx } from "./test-package.ts";

const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

async function tablesOf(bytes: Uint8Array): Promise<TableItem[]> {
  const doc = await loadDocument({ bytes, mimeType: PPTX });
  return doc.items.filter((item): item is TableItem => item.label === "table");
}

/** A cell as `text@row,col rowSpan x colSpan` with `H` for a column header and `R` for a row header. */
const describe = (table: TableItem) =>
  table.cells.map(
    (c) =>
      `${c.text}@${c.row},${c.col} ${c.rowSpan}x${c.colSpan}${c.columnHeader ? " H" : ""}${c.rowHeader ? " R" : ""}`,
  );

const named = (name: string): SlideTable => {
  const table = SLIDE_TABLES.find((t) => t.name === name);
  assert.ok(table, name);
  return table;
};

test("merged cells keep their spans, empty cells stay in place, headers follow firstRow and firstCol", async () => {
  const tables = await tablesOf(
    slideTablesDeck([named("merged across and down"), named("no header row"), named("block merge")]),
  );
  assert.equal(tables.length, 3);
  const [merged, plain, block] = tables;
  assert.equal(merged.numRows, 6);
  assert.equal(merged.numCols, 5);
  assert.deepEqual(describe(merged), [
    "Site@0,0 1x1 H R",
    "Metric@0,1 1x1 H",
    "Jan@0,2 1x1 H",
    "Feb@0,3 1x1 H",
    "Mar@0,4 1x1 H",
    "Berlin@1,0 2x1 R",
    "Visits@1,1 1x1",
    "120@1,2 1x1",
    "@1,3 1x1",
    "140@1,4 1x1",
    "Sales@2,1 1x1",
    "4@2,2 1x1",
    "5@2,3 1x1",
    "@2,4 1x1",
    "Paris@3,0 2x1 R",
    "Visits@3,1 1x1",
    "no data@3,2 1x3",
    "Sales@4,1 1x1",
    "@4,2 1x1",
    "@4,3 1x1",
    "2@4,4 1x1",
    "Total@5,0 1x2 R",
    "124@5,2 1x1",
    "5@5,3 1x1",
    "142@5,4 1x1",
  ]);
  // bandRow alone (no firstRow): no header.
  assert.deepEqual(describe(plain), [
    "alpha@0,0 1x1",
    "1@0,1 1x1",
    "beta@1,0 1x1",
    "2@1,1 1x1",
    "gamma@2,0 1x1",
    "3@2,1 1x1",
  ]);
  assert.deepEqual(describe(block).slice(4, 8), [
    "Span@1,0 1x1",
    "two by two@1,1 2x2",
    "Kim@1,3 1x1",
    "x@2,0 1x1",
  ]);
});

/** A one-slide deck of a table with a bare `a:tblPr`, as LibreOffice writes it; `*text` is a bold run, `#` a fill. */
function bareTable(rows: string[][]): Uint8Array {
  const tc = (cell: string) => {
    const bold = cell.startsWith("*") ? ' b="1"' : ' b="0"';
    const fill = cell.endsWith("#") ? '<a:solidFill><a:srgbClr val="4472C4"/></a:solidFill>' : "<a:noFill/>";
    const text = cell.replace(/^\*/, "").replace(/#$/, "");
    const run = text ? `<a:r><a:rPr${bold} lang="en-US"/><a:t>${text}</a:t></a:r>` : "";
    return `<a:tc><a:txBody><a:bodyPr/><a:p>${run}</a:p></a:txBody><a:tcPr>${fill}</a:tcPr></a:tc>`;
  };
  const frame =
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="2" name="T"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>' +
    '<p:xfrm><a:off x="0" y="0"/><a:ext cx="100" cy="100"/></p:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table">' +
    `<a:tbl><a:tblPr></a:tblPr><a:tblGrid>${'<a:gridCol w="1"/>'.repeat(rows[0].length)}</a:tblGrid>` +
    `${rows.map((cells) => `<a:tr h="1">${cells.map(tc).join("")}</a:tr>`).join("")}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
  return pptx([{ tree: frame }]);
}

test("a bare tblPr (LibreOffice's): headers are the first row and column that stand out by bold text or fill", async () => {
  const [bold] = await tablesOf(
    bareTable([
      ["*k", "*v", ""],
      ["a", "", "b"],
      ["c", "d", "e"],
    ]),
  );
  assert.deepEqual(describe(bold).slice(0, 4), ["k@0,0 1x1 H", "v@0,1 1x1 H", "@0,2 1x1 H", "a@1,0 1x1"]);
  const [filled] = await tablesOf(
    bareTable([
      ["#", "x#", "y#"],
      ["*p#", "1", "2"],
      ["*q#", "3", ""],
    ]),
  );
  assert.deepEqual(describe(filled), [
    "@0,0 1x1 H R",
    "x@0,1 1x1 H",
    "y@0,2 1x1 H",
    "p@1,0 1x1 R",
    "1@1,1 1x1",
    "2@1,2 1x1",
    "q@2,0 1x1 R",
    "3@2,1 1x1",
    "@2,2 1x1",
  ]);
  const [flat] = await tablesOf(
    bareTable([
      ["k", "v"],
      ["a", "b"],
    ]),
  );
  assert.deepEqual(describe(flat), ["k@0,0 1x1", "v@0,1 1x1", "a@1,0 1x1", "b@1,1 1x1"]);
});

test("every slide table of the set scores TEDS 1 against its truth", async () => {
  const scores = await scoreSlideTables(slideTablesDeck(SLIDE_TABLES));
  assert.equal(scores.length, SLIDE_TABLES.length);
  for (const score of scores) assert.equal(score.teds, 1, `${score.name}: ${score.html}`);
});
