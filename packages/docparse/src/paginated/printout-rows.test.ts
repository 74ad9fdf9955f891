import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";

/** Records of a library's loans printout: each two lines of fields padded to their columns. */
const RECORDS = [
  ["BOOK", "HARDCOVER", "ORCHARD PRESS", "12", "OUT", "A1187", "Loan#:LB2201-1", "BRANCH NORTH"],
  ["DISC", "AUDIO", "RIVERSIDE SOUND", "3", "DUE", "B2290", "Loan#:LB2207-4", "BRANCH SOUTH"],
  ["BOOK", "PAPERBACK", "HARBOUR BOOKS", "7", "OUT", "C3391", "Loan#:LB2215-2", "BRANCH EAST"],
  ["MAP", "FOLDED", "SURVEY OFFICE", "1", "LOST", "D4402", "Loan#:LB2230-1", "BRANCH WEST"],
  ["BOOK", "HARDCOVER", "LANTERN HOUSE", "9", "OUT", "E5513", "Loan#:LB2241-3", "BRANCH NORTH"],
];

/** A printout set in Courier: a title, a header of two lines, then records of two lines, each field at its column. */
async function printoutWords(): Promise<string> {
  const { pdf, fonts } = await newPdf();
  const font = fonts.mono;
  const page = pdf.addPage([792, 612]);
  const at = [36, 130, 230, 420, 470];
  const second = [36, 150, 260, 400];
  const fields = (texts: readonly string[], xs: readonly number[], top: number) => {
    for (const [k, text] of texts.entries()) drawLine(page, text, xs[k], top, font, 8);
  };
  drawLine(page, "COUNTY LIBRARY LOANS", 320, 40, font, 8);
  fields(["TYPE", "ITEM", "PUBLISHER", "COPIES", "STATUS"], at, 80);
  fields(["SHELF", "LOAN NUMBER", "LOCATION"], second, 88);
  for (const [n, record] of RECORDS.entries()) {
    fields(record.slice(0, 5), at, 110 + n * 24);
    fields(record.slice(5), second, 118 + n * 24);
  }
  const { result } = await parseDocument({ bytes: await pdf.save(), mimeType: "application/pdf" });
  return markdownSubject(result.markdown).words;
}

test("a printout's fields in a fixed-width face are read along their rows, record by record", async () => {
  const words = await printoutWords();
  assert.ok(words.includes(" disc audio riverside sound 3 due "), words);
  assert.ok(words.includes(" b2290 loan lb2207 4 branch south "), words);
  assert.ok(words.indexOf(" e5513 ") > words.indexOf(" lantern house "), words);
  assert.ok(words.indexOf(" a1187 ") < words.indexOf(" riverside sound "), words);
});

test("public page: a police printout's records are read field by field along their lines", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("sjpd-property-report.pdf", [
    { before: ["TAURUS FORJAS", "Tag#:SJ3360-1"] },
    { present: "PISTOL SEMI-AUTOMATIC CARL WALTHER PPK 7.65 FOUND" },
    { before: ["SZH77919", "SMITH AND WESSON"] },
  ]);
});
