import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts, markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";

const XS = [72, 200, 320, 440, 560];
const ROWS = [
  ["Region", "North", "South", "East"],
  ["Apples", "12", "15", "9"],
  ["Pears", "7", "4", "11"],
  ["Plums", "3", "8", "6"],
  ["Cherries", "5", "2", "14"],
];

/**
 * A slide's table as a browser prints it: each cell a stroked rectangle of its own for the header and the first
 * rows, the last row's cells drawn without one (rows ruled between them only), then a line of text under it.
 */
function rowsRuledBetween(under: string): Uint8Array {
  const pitch = 30;
  const top = 700;
  const boxes = ROWS.slice(0, -1).flatMap((_, r) =>
    XS.slice(0, -1).map((x, c) => `${x} ${top - pitch * (r + 1)} ${XS[c + 1] - x} ${pitch} re S`),
  );
  const text = ROWS.flatMap((row, r) =>
    row.map((cell, c) => `BT /F1 11 Tf ${XS[c] + 6} ${top - pitch * (r + 1) + 10} Td (${cell}) Tj ET`),
  );
  const note = `BT /F1 11 Tf 72 ${top - pitch * 5 - 40} Td (${under}) Tj ET`;
  return onePagePdf(["0.5 w", ...boxes, ...text, note].join("\n"));
}

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing: {} } });
  return result.markdown;
}

test("the last row under a table ruled between its rows is the table's last row", async () => {
  const markdown = await markdownOf(rowsRuledBetween("Figures are crates sold in the week."));
  const rows = markdownRows(markdown);
  assert.ok(
    rows.some((row) => row.join("|") === "cherries|5|2|14"),
    markdown,
  );
  // The note further under it stays a paragraph.
  assert.ok(!rows.flat().some((cell) => cell.includes("crates")), markdown);
});

test("an HTML slide's table: its last row, under the last rule, keeps its cells", {
  timeout: 300_000,
}, async () => {
  await assertPdfFacts("shower-slides-table-p8.pdf", [
    { neighbours: ["Swag", "Blog"] },
    { neighbours: ["Terry", "Richardson"] },
    { before: ["Richardson", "It’s good to have information organized."] },
  ]);
});
