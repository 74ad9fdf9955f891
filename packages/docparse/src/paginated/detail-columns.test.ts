import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { drawLine, drawParagraph, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

/** A CV's education section: a date line, then the school in a larger size with its degree on its baseline. */
const ENTRIES = [
  { dates: "2018.05 - 2020.05", school: "Harbour Institute of Technology", degree: "Computer Science, MSc" },
  { dates: "2014.09 - 2018.06", school: "Island College", degree: "Mathematics, BSc" },
  { dates: "2011.09 - 2014.06", school: "Ferry Town School", degree: "Diploma" },
];

test("details set on the baselines of a CV's entries are read with their entry, not after the last one", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "Education", 72, 80, fonts.bold, 14);
  let top = 110;
  for (const entry of ENTRIES) {
    drawLine(page, entry.dates, 72, top, fonts.regular, 8);
    drawLine(page, entry.school, 72, top + 14, fonts.bold, 11);
    drawLine(page, entry.degree, 380, top + 15, fonts.regular, 10);
    top += 46;
  }
  const markdown = await markdownOf(await pdfBytes(pdf));
  for (const [i, entry] of ENTRIES.entries()) {
    const at = markdown.indexOf(entry.degree);
    assert.ok(at > markdown.indexOf(entry.school), `${entry.degree} after its school:\n${markdown}`);
    const next = ENTRIES[i + 1];
    if (next)
      assert.ok(at < markdown.indexOf(next.dates), `${entry.degree} before the next entry:\n${markdown}`);
  }
});

test("a margin note beside a paragraph's line is no detail: the paragraph stays whole", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const prose =
    "The ferry leaves the harbour at seven and returns before the evening tide, so passengers who miss it wait " +
    "for the morning boat, which calls at every island on the way and takes most of the day to reach the town, " +
    "where the market opens at noon and closes when the last boat of the day has left the quay.";
  drawParagraph(page, prose, { x: 72, top: 100, width: 260, font: fonts.regular, size: 11 });
  drawLine(page, "See the note on tides, page 4", 400, 113.75, fonts.regular, 9);
  drawLine(page, "See the note on boats, page 5", 400, 141.25, fonts.regular, 9);
  const markdown = await markdownOf(await pdfBytes(pdf));
  assert.ok(markdown.includes(prose), markdown);
});

test("public: the Chinese CV reads each degree after its school", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}zh-cv-p1.pdf`));
  const order = [
    "北京师范大学珠海分校",
    "计算机科学与技术（应用技术）",
    "2006.01 - 2007.01",
    "青岛理工大学",
    "高中",
    "培训经历",
  ];
  const at = order.map((text) => markdown.indexOf(text));
  assert.ok(
    at.every((x, i) => x >= 0 && (i === 0 || x > at[i - 1])),
    `${at}\n${markdown.slice(-600)}`,
  );
});
