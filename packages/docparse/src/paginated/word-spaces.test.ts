import assert from "node:assert/strict";
import { test } from "node:test";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { layoutPage } from "./layout.ts";
import { wordSpacesRemoved } from "./word-spaces.ts";

/** Courier: every character 0.6 em wide, so that the words' spaces are known. */
const COURIER = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>";
const COURIER_BOLD = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier-Bold /Encoding /WinAnsiEncoding >>";
const text = (x: number, y: number, s: string, size: number, font = "F1") =>
  `BT /${font} ${size} Tf ${x} ${y} Td (${s}) Tj ET`;

test("a large title's word spaces over columns of small type are not gutters", async () => {
  // The title word by word (fonts alternate, so that each word stays a run of its own, as a poster's export
  // draws them), its spaces wider than the gutter the small type needs.
  const parts: string[] = [];
  let x = 20;
  for (const [i, word] of ["Download", "Festival", "2009", "Timetable"].entries()) {
    parts.push(text(x, 760, word, 14, i % 2 === 0 ? "F1" : "F2"));
    x += word.length * 14 * 0.6 + 5.5;
  }
  // Day labels in 12 pt right under the title, touching it (no whitespace across between them), then columns
  // 18 pt wide at 20, 120, 220 and 320: the title's word spaces fall in the first two gutters.
  parts.push(text(20, 750, "Friday", 12), text(320, 750, "Sunday", 12));
  for (let row = 0; row < 12; row++) {
    const y = 742 - row * 6;
    for (const column of [20, 120, 220, 320]) parts.push(text(column, y, `act ${row}`, 5));
  }
  const doc = await openPdf(onePagePdf(parts.join("\n"), { fonts: [COURIER, COURIER_BOLD] }));
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), { detectTables: () => [], dropStruck: false });
    const lines = layout.entries.flatMap((entry) =>
      entry.kind === "block" ? entry.block.lines.map((line) => line.text) : [],
    );
    assert.ok(lines.includes("Download Festival 2009 Timetable"), lines.join("\n"));
  } finally {
    await doc.destroy();
  }
});

test("a gutter between two columns' lines is kept; a word space of one line is not", () => {
  const gaps = [{ start: 100, end: 112 }];
  // Two 10 pt lines' runs 12 pt apart: a gutter.
  const columns = [
    { x1: 40, y1: 100, x2: 100, y2: 111 },
    { x1: 112, y1: 100, x2: 170, y2: 111 },
  ];
  assert.deepEqual(wordSpacesRemoved(gaps, columns), gaps);
  // Two 28 pt words of one title 12 pt apart: a word space.
  const title = [
    { x1: 40, y1: 100, x2: 100, y2: 130 },
    { x1: 112, y1: 100, x2: 170, y2: 130 },
  ];
  assert.deepEqual(wordSpacesRemoved(gaps, title), []);
});
