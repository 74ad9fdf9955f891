import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { blockBesideLine } from "./side-block.ts";

const text = (x: number, y: number, s: string, size = 10) => `BT /F1 ${size} Tf ${x} ${y} Td (${s}) Tj ET`;

/** A letter's top: the sender's name on the left, level with the second line of an address block on the right. */
const LETTER = [
  text(440, 760, "Harbour Street 15", 8),
  text(72, 740, "Anna Berglund", 16),
  text(440, 746, "4021 Lakeside", 8),
  text(440, 732, "The Netherlands", 8),
  text(72, 640, "Dear Mr. Ferryman,"),
  text(
    72,
    610,
    "Thank you for the timetable of the summer ferries across the lake, which reached me by post last week.",
  ),
  text(
    72,
    596,
    "I should like to book two crossings for the first week of July, both of them early in the morning, please.",
  ),
  text(72, 566, "Yours sincerely,"),
];

test("an address block beside a single line level with its later lines is read whole, and kept as content", async () => {
  const { result } = await parseDocument({
    bytes: onePagePdf(LETTER.join("\n")),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  assert.match(result.markdown, /Harbour Street 15\s+4021 Lakeside\s+The Netherlands/, result.markdown);
  assert.match(result.markdown, /Anna Berglund/);
});

test("a single line beside a block is a column only when level with its later lines and the block shares an edge", () => {
  const b = (x1: number, y1: number, width = 80, height = 8) => ({ x1, y1, x2: x1 + width, y2: y1 + height });
  const name = [b(72, 36, 100, 14)];
  const block = [b(440, 22), b(440, 36, 60), b(440, 50, 70)];
  assert.equal(blockBesideLine([name, block]), true);
  // The line level with the block's first line: read along the rows, the block stays whole anyway.
  assert.equal(blockBesideLine([[b(72, 22, 100, 8)], block]), false);
  // Two lines only beside it: no block.
  assert.equal(blockBesideLine([name, block.slice(0, 2)]), false);
  // The rest of one of the block's lines, a word space after it, is no column.
  assert.equal(blockBesideLine([block, [b(503, 36, 60)]]), false);
  // Lines set in another size (a title under a letterhead's lines) make no block.
  assert.equal(blockBesideLine([name, [b(440, 22), b(440, 36, 60), b(440, 50, 70, 26)]]), false);
  // Lines that share no edge (scattered labels) are no block.
  assert.equal(blockBesideLine([name, [b(440, 22), b(470, 36, 60), b(455, 50, 70)]]), false);
});

test("public: the application letter's sender address in small capitals is read whole", async () => {
  await assertPdfFacts("cv-application-letter.pdf", [
    { present: "Street 15 1234AB G-Town The Netherlands" },
    { before: ["Street 15 1234AB G-Town The Netherlands", "Employer Research"] },
  ]);
});
