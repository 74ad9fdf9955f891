import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { extractPdfPage } from "./extract.ts";
import { openPdf } from "./open.ts";
import { onePagePdf } from "./test-pdf.ts";

/** Helvetica again, its letters a–j read through a ToUnicode map as the Hebrew letters alef to yod. */
const HEBREW_HELVETICA =
  "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding /ToUnicode 6 0 R >>";
const HEBREW = "אבגדהוזחטי";
const HEBREW_CMAP = [
  "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def",
  "1 begincodespacerange <00> <ff> endcodespacerange",
  `11 beginbfchar <20> <0020> ${[...HEBREW]
    .map((ch, i) => `<${(0x61 + i).toString(16)}> <${ch.codePointAt(0)?.toString(16).padStart(4, "0")}>`)
    .join(" ")} endbfchar`,
  "endcmap CMapName currentdict /CMap defineresource pop end end",
].join("\n");
const cmapObject = `<< /Length ${Buffer.byteLength(HEBREW_CMAP, "latin1")} >>\nstream\n${HEBREW_CMAP}\nendstream`;

const hasCyrillicOrLatin = (text: string) => /[\p{Script=Latin}\p{Script=Cyrillic}]/u.test(text);
const hasHebrew = (text: string) => /\p{Script=Hebrew}/u.test(text);

/** Runs holding letters of a left-to-right script and Hebrew ones both. */
async function mixedRuns(bytes: Uint8Array, pageNumber: number): Promise<string[]> {
  const doc = await openPdf(bytes);
  try {
    const page = await extractPdfPage(doc, pageNumber);
    return page.runs
      .filter((run) => hasCyrillicOrLatin(run.text) && hasHebrew(run.text))
      .map((run) => run.text);
  } finally {
    await doc.destroy();
  }
}

test("a Latin line ending 4 pt before a Hebrew one on its baseline is two runs, not one reordered item", async () => {
  // One show: the Latin words, then a kern of 4 pt (less than pdf.js's in-flow space limit of 0.6 em at 10 pt)
  // and the Hebrew letters, all in one face.
  const latin = "sort your worst";
  const bytes = onePagePdf(`BT /F1 10 Tf 72 700 Td [(${latin}) -400 (abc deg hij)] TJ ET`, {
    fonts: [HEBREW_HELVETICA],
    objects: [cmapObject],
  });
  const doc = await openPdf(bytes);
  try {
    const runs = (await extractPdfPage(doc, 1)).runs.map((run) => run.text);
    assert.ok(runs.includes(latin), JSON.stringify(runs));
    assert.ok(
      runs.some((text) => hasHebrew(text) && !hasCyrillicOrLatin(text)),
      JSON.stringify(runs),
    );
  } finally {
    await doc.destroy();
  }
  assert.deepEqual(await mixedRuns(bytes, 1), []);
});

test("a parallel edition's Russian line run long into the gutter is no run with the Hebrew beside it", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "reledpar-ru-he-parallel.pdf")));
  assert.deepEqual(await mixedRuns(bytes, 2), []);
});
