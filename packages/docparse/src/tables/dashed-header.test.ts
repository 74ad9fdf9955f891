import assert from "node:assert/strict";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { assertPdfFacts, type Fact, factHolds, markdownRows, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

/** A line printer's page: fixed-width lines, 10 points apart, from the page's top. */
async function printout(lines: readonly string[]): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Courier);
  const page = pdf.addPage([612, 792]);
  lines.forEach((line, i) => {
    if (line.trim() !== "") page.drawText(line, { x: 30, y: 750 - 10 * i, size: 8, font });
  });
  return pdf.save();
}

test("a printout's records of two lines under two dashed header lines read as a table, a line a row", async () => {
  const bytes = await printout([
    "INVENTORY LISTING",
    "",
    "KIND            MAKER                          MODEL      SIZE",
    "--------------- ------------------------------ ---------- ----",
    "SERIAL          TAG NUMBER     SHELF",
    "--------------- -------------- ----------",
    "",
    "DRILL           BLACK AND DECKER CO.           KR 500     10MM",
    "A-11872         TAG:0001-1     B-04/NORTH",
    "",
    "SAW             MAKITA                         HS 7601    190",
    "UNKNOWN         TAG:0002-7     B-05/SOUTH",
    "",
    "SANDER          BOSCH GMBH                     PEX 300    125",
    "B-99812         TAG:0003-2     C-01/EAST",
    "",
    "",
    "Flags = a (active) r (retired) s (stored off site)",
  ]);
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  const subject = markdownSubject(result.markdown);
  const facts: Fact[] = [
    { neighbours: ["KIND", "MAKER"] },
    { neighbours: ["MODEL", "SIZE"] },
    { neighbours: ["TAG NUMBER", "SHELF"] },
    { neighbours: ["SAW", "MAKITA"] },
    { neighbours: ["HS 7601", "190"] },
    { neighbours: ["UNKNOWN", "TAG:0002-7"] },
    { neighbours: ["TAG:0002-7", "B-05/SOUTH"] },
  ];
  for (const fact of facts)
    assert.ok(factHolds(fact, subject), `${JSON.stringify(fact)} in:\n${result.markdown}`);
  const rows = markdownRows(result.markdown);
  // The legend under the table is text of its own.
  assert.ok(!rows.flat().some((cell) => cell.includes("flags")), result.markdown);
  assert.match(result.markdown, /Flags = a \(active\)/);
});

test("the police printout's firearm records read as table rows, each field in its column", async () => {
  await assertPdfFacts("sjpd-property-report.pdf", [
    { neighbours: ["CARL WALTHER", "PPK"] },
    { neighbours: ["PPK", "7.65"] },
    { neighbours: ["MISS.VALLEY ARMS CO.", "UNK"] },
    { before: ["TAURUS FORJAS", "Tag#:SJ3360-1"] },
    { present: "Flags = e (evidence) d (disposed) x (x-reference) n (entered on NCIC)" },
  ]);
});
