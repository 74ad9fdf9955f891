import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { blockText, buildBlocks } from "./blocks.ts";
import { makeLine } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

/** A line of one run from x1 to x2, its box as tall as OCR reads it (`height`). */
function ocrLine(text: string, y: number, height: number, x2 = 290) {
  return makeLine([
    textRun(text, { x1: 50, y1: y, x2, y2: y + height }, { fontName: "ocr", fontSize: height }),
  ]);
}

test("a word broken at a line's end joins the next line even when OCR sizes the short line smaller", () => {
  // Lines of capitals and ascenders read 11 pt high; the last line, `nition.`, has only x-height letters.
  const lines = [
    ocrLine("It also permits one to write recursive", 100, 11),
    ocrLine("functions without a defi-", 113, 11),
    ocrLine("nition.", 116 + 11, 7.2, 80),
  ];
  const blocks = buildBlocks(lines, { lineGap: 2 });
  assert.deepEqual(blocks.map(blockText), [
    "It also permits one to write recursive functions without a definition.",
  ]);
  // Without the broken word the smaller line is a block of its own (a caption, a footnote under the text).
  const apart = buildBlocks([...lines.slice(0, 1), ocrLine("a caption line", 113 + 1, 7.2, 120)], {
    lineGap: 2,
  });
  assert.equal(apart.length, 2);
});

test("a scanned journal page keeps a word broken at a short paragraph end whole", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "cacm-backus-p621.pdf"));
  assert.match(markdown, /recursive functions without a definition\./, markdown);
});

test("a scanned regulation keeps a word broken at the end of an item's indented first line whole", {
  timeout: 600_000,
}, async () => {
  // `(i) Open competitive examinations for admission to the competitive serv-` + `ice that will fairly test …`,
  // the next line back at the column's margin, left of the item's first line.
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "scan-cfr-two-column-p8.pdf"));
  assert.match(markdown, /to the competitive service that will fairly test/, markdown);
  assert.match(markdown, /Standards with respect to citizenship, age, education/, markdown);
});

test("a word broken at a line's end by the Armenian hyphen joins the next line without it", () => {
  const line = (text: string, y: number) =>
    makeLine([textRun(text, { x1: 50, y1: y, x2: 300, y2: y + 10 }, { fontName: "Armenian", fontSize: 10 })]);
  const blocks = buildBlocks(
    [line("նախքան այս բետա թողարկ֊", 100), line("ման պաշտոնականացումը։ 2.0-ի", 112), line("տարբերակ", 124)],
    { lineGap: 2 },
  );
  assert.deepEqual(blocks.map(blockText), ["նախքան այս բետա թողարկման պաշտոնականացումը։ 2.0-ի տարբերակ"]);
});

test("an Armenian manual page reads its words broken by the Armenian hyphen whole", {
  timeout: 120_000,
}, async () => {
  await assertPdfFacts("hy-armtex-manual-p1.pdf", [
    { present: "այս բետա թողարկման պաշտոնականացումը" },
    { present: "այբուբենը գտնվի ընդլայնված ASCII աղյուսակի երկրորդ կեսում" },
    { present: "Կարող եք այն առանց մտահոգվելու բաժանել ձեր ընկերներին" },
  ]);
});
