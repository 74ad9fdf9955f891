import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { DetectedTable, Rule, TextRun } from "../paginated/geometry.ts";
import { hRule as h, pageGeometry, vRule as v } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { detectRuledTables } from "./ruled.ts";
import { grid, run } from "./test-geometry.ts";

// A ruled grid of two columns (72|306|540) and two rows: a header band 154..181, a body 181..611.
const RULES: Rule[] = [
  h(154, 72, 540),
  h(181, 72, 540),
  h(611, 72, 540),
  v(72, 154, 611),
  v(306, 154, 611),
  v(540, 154, 611),
];

/** Lines of a paragraph list in one column: each item a sentence of some twenty words over four lines. */
function listColumn(x: number, opener: string): TextRun[] {
  const runs: TextRun[] = [];
  let y = 188;
  for (let item = 0; item < 5; item++) {
    runs.push(run(`${opener} keep the quote beside the request when`, x, y));
    runs.push(run("you read each part of it and note the", x, y + 14));
    runs.push(run("points that it answers and the ones that", x, y + 28));
    runs.push(run(`it leaves open for item ${item + 1}.`, x, y + 42));
    y += 70;
  }
  return runs;
}

const body = [...listColumn(77, "Do"), ...listColumn(311, "Don't")];

test("a ruled grid whose header row names its columns is a table, however long the lists under it", () => {
  const runs = [run("Do's", 83, 160, { bold: true }), run("Don'ts", 317, 160, { bold: true }), ...body];
  const tables = detectRuledTables(pageGeometry({ runs, rules: RULES }));
  assert.equal(tables.length, 1);
  const rows = grid(tables[0]);
  assert.deepEqual(rows[0], ["Do's", "Don'ts"]);
  assert.match(rows[1][0], /^Do keep the quote.*item 5\.$/s);
  assert.match(rows[1][1], /^Don't keep the quote.*item 5\.$/s);
});

test("long paragraphs in a ruled grid without a header naming each column make no table", () => {
  // The first row holds a sentence, not a label: boxes of text laid out side by side.
  const runs = [
    run("Here is a long introduction over both", 83, 160),
    run("and this side goes on with it", 317, 160),
    ...body,
  ];
  assert.deepEqual(detectRuledTables(pageGeometry({ runs, rules: RULES })), []);
});

test("the evaluator worksheet's do's and don'ts: a table of two columns", async () => {
  const bytes = new Uint8Array(
    readFileSync(new URL("../../test/real-world/evaluator-worksheet-p1-3.pdf", import.meta.url)),
  );
  const doc = await openPdf(bytes);
  let tables: DetectedTable[];
  try {
    tables = detectRuledTables(await extractPdfPage(doc, 2));
  } finally {
    await doc.destroy();
  }
  const rows = tables.flatMap((t) => grid(t));
  assert.deepEqual(rows[0], ["Do’s", "Don’ts"]);
  assert.match(rows[1][0], /^Do evaluate quotes against the solicitation requirements\./);
  assert.match(rows[1][1], /^Don’t make assumptions\./);
});
