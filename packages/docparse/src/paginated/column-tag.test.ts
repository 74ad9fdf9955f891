import assert from "node:assert/strict";
import { test } from "node:test";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { gapUnderColumnTag } from "./column-tag.ts";
import { layoutPage } from "./layout.ts";

const text = (x: number, y: number, s: string, size = 10) => `BT /F1 ${size} Tf ${x} ${y} Td (${s}) Tj ET`;

async function linesOf(parts: readonly string[]): Promise<string[]> {
  const doc = await openPdf(onePagePdf(parts.join("\n")));
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), { detectTables: () => [], dropStruck: false });
    return layout.entries.flatMap((entry) =>
      entry.kind === "block" ? entry.block.lines.map((line) => line.text) : [],
    );
  } finally {
    await doc.destroy();
  }
}

test("a question's points at the right margin, level with it over two columns of questions, are read before them", async () => {
  const lines = await linesOf([
    // A question across the page, its points at the right margin, its options under it.
    text(40, 700, "2. Which of these is the derivative of x squared?"),
    text(500, 700, "[Points 5]"),
    text(55, 684, "a x;   b 2x;   c 2;   d x."),
    // Two columns of questions under it, starting together.
    text(40, 650, "3. Let p and q be two propositions; four of the"),
    text(52, 636, "following statements are equivalent, while one"),
    text(52, 622, "is not. Which one is it?"),
    text(60, 606, "a p implies q"),
    text(60, 592, "b q is necessary for p"),
    text(60, 578, "c p follows from q"),
    text(320, 650, "4. Which sentence is equivalent to"),
    text(332, 632, "it is not true that Mario reads and listens"),
    text(340, 610, "a Mario reads and listens"),
    text(340, 596, "b Mario reads or listens"),
    text(340, 582, "c Mario neither reads nor listens"),
  ]);
  const at = (s: string) => lines.findIndex((line) => line.includes(s));
  assert.ok(at("[Points 5]") >= 0 && at("[Points 5]") < at("3. Let p and q"), lines.join("\n"));
  assert.ok(at("a x;") < at("3. Let p and q"), lines.join("\n"));
  assert.ok(at("c p follows from q") < at("4. Which sentence"), lines.join("\n"));
});

test("a column's own heading at its top, or a tag with its column's text close under it, is no tag", () => {
  const b = (x1: number, y1: number, w = 200) => ({ x1, y1, x2: x1 + w, y2: y1 + 10 });
  const gaps = [
    { start: 110, end: 114 },
    { start: 124, end: 150 },
  ];
  // A heading at the left edge of the right column, its text under it after a blank.
  assert.equal(
    gapUnderColumnTag(
      [
        [b(40, 100), b(40, 114), b(40, 150)],
        [b(320, 100, 60), b(320, 150)],
      ],
      gaps,
      10,
    ),
    null,
  );
  // A tag at the right of its column, but its column's text follows it at the line's pitch.
  assert.equal(
    gapUnderColumnTag(
      [
        [b(40, 100), b(40, 114), b(40, 150)],
        [b(470, 100, 50), b(320, 114), b(320, 150)],
      ],
      gaps,
      10,
    ),
    null,
  );
  // The tag at the right, its column's text a blank under it, level with the column beside it: cut at that blank.
  assert.deepEqual(
    gapUnderColumnTag(
      [
        [b(40, 100), b(40, 114), b(40, 150)],
        [b(470, 100, 50), b(320, 150)],
      ],
      gaps,
      10,
    ),
    gaps[1],
  );
});
