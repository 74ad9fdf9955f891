import assert from "node:assert/strict";
import { test } from "node:test";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { bandBeforeColumns } from "./later-column.ts";
import { layoutPage } from "./layout.ts";

const text = (x: number, y: number, s: string, size = 10) => `BT /F1 ${size} Tf ${x} ${y} Td (${s}) Tj ET`;

test("a letterhead at the top right is read before the address block that starts lower on the left", async () => {
  const parts = [
    // The sender's letterhead on the right (a photo or logo would stand on the left).
    text(330, 760, "Claud D. Park", 20),
    text(330, 740, "235 World Cup buk-ro, Mapo-gu, Seoul"),
    text(330, 726, "posquit0.bj@gmail.com | www.posquit0.com"),
    // The recipient on the left, the date on the right of its first line.
    text(40, 640, "Company Recruitment Team"),
    text(40, 626, "Google Inc."),
    text(40, 612, "1600 Amphitheatre Parkway"),
    text(40, 598, "Mountain View, CA 94043"),
    text(480, 640, "December 29, 2025"),
  ];
  const doc = await openPdf(onePagePdf(parts.join("\n")));
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), { detectTables: () => [], dropStruck: false });
    const lines = layout.entries.flatMap((entry) =>
      entry.kind === "block" ? entry.block.lines.map((line) => line.text) : [],
    );
    const at = (s: string) => lines.findIndex((line) => line.includes(s));
    assert.ok(
      at("Claud D. Park") >= 0 && at("Claud D. Park") < at("Company Recruitment Team"),
      lines.join("\n"),
    );
    assert.ok(at("Company Recruitment Team") < at("Google Inc."), lines.join("\n"));
    assert.ok(at("Google Inc.") < at("Mountain View, CA 94043"), lines.join("\n"));
  } finally {
    await doc.destroy();
  }
});

test("columns that start together, or a column that has nothing under the band, are not cut across", () => {
  const b = (x1: number, y1: number) => ({ x1, y1, x2: x1 + 100, y2: y1 + 10 });
  const gaps = [{ start: 140, end: 200 }];
  // Both columns hold text above the band: ordinary columns with a blank between paragraphs.
  assert.equal(
    bandBeforeColumns(
      [
        [b(40, 100), b(40, 210)],
        [b(320, 100), b(320, 210)],
      ],
      gaps,
      10,
    ),
    null,
  );
  // The right column ends above the band, the left starts under it (a paragraph running on across columns).
  assert.equal(bandBeforeColumns([[b(40, 600)], [b(320, 100), b(320, 120)]], gaps, 10), null);
  // A letterhead above, the address and the date level under it: cut.
  assert.deepEqual(
    bandBeforeColumns(
      [
        [b(40, 210), b(40, 224)],
        [b(320, 100), b(320, 211)],
      ],
      gaps,
      10,
    ),
    gaps[0],
  );
});
