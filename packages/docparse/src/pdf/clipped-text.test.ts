import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { extractPdfPage } from "./extract.ts";
import { openPdf } from "./open.ts";
import { onePagePdf } from "./test-pdf.ts";

async function pageRuns(bytes: Uint8Array): Promise<TextRun[]> {
  const doc = await openPdf(bytes);
  try {
    return (await extractPdfPage(doc, 1)).runs;
  } finally {
    await doc.destroy();
  }
}

test("a cell's text clipped at its column keeps its words, ends at the clip, and stays apart from the next cell", async () => {
  // A spreadsheet's row: a long entry clipped to its cell (x 100 to 250), the amount drawn right where its hidden
  // end stops, then a date cell clipped with room to spare.
  const content = [
    "q 100 700 150 12 re W n",
    "BT /F1 10 Tf 100 702 Td (Being payment against bill no.197 dated 29.01.2016) Tj ET Q",
    "BT /F1 10 Tf 330.5 702 Td (1074935) Tj ET",
    "q 100 680 150 12 re W n BT /F1 10 Tf 100 682 Td (Opening balance) Tj ET Q",
    "BT /F1 10 Tf 300 682 Td (27614207) Tj ET",
  ].join("\n");
  const runs = await pageRuns(onePagePdf(content));
  const entry = runs.find((run) => run.text.startsWith("Being"));
  assert.ok(entry);
  assert.equal(entry.text, "Being payment against bill no.197 dated 29.01.2016");
  assert.ok(entry.box.x2 < 256, `the entry ends at its clip, not at ${entry.box.x2}`);
  assert.ok(runs.some((run) => run.text === "1074935"));
  assert.ok(runs.some((run) => run.text === "Opening balance"));
});

test("the ledger's clipped particulars end at their column; the last row's date and amount are apart", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "ledger-statement-p1.pdf")));
  const runs = await pageRuns(bytes);
  const last = runs.find((run) => run.text.startsWith("Chq. No. 086866"));
  assert.ok(last);
  assert.match(last.text, /dated 29\.01\.2016$/);
  assert.ok(runs.some((run) => run.text === "1074935" && run.box.x1 > last.box.x2));
  // The first row's particulars run on hidden under the amounts: they end before the Dr.Amt column's figures.
  const first = runs.find((run) => run.text.startsWith("Chq. No. 085900"));
  const amount = runs.find((run) => run.text === "26406576");
  assert.ok(first && amount);
  assert.match(first.text, /141, 144, 156,/);
  assert.ok(first.box.x2 < amount.box.x1, `${first.box.x2} < ${amount.box.x1}`);
});
