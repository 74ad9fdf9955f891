import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { withoutJunkWords } from "./junk-words.ts";

const word = (text: string, confidence: number, lineId: string) => ({ text, confidence, lineId });

test("a logo's junk goes: misshapen words read with little confidence, short fragments in their paragraph", () => {
  // As OCR reads a script-face logo over its artwork, with its plain caption under it.
  const logo = [
    word("Pri", 0.85, "1.1.1"),
    word("ViNC", 0, "1.1.2"),
    word("Edward", 0.96, "1.1.3"),
    word("2@", 0.73, "2.1.1"),
    word("[sland", 0.78, "2.1.1"),
    word("CANADA", 0.96, "3.1.1"),
  ];
  // `ViNC`, read with no confidence, is left out with every such word when the crop's words join the page.
  assert.deepEqual(
    withoutJunkWords(logo).map((w) => w.text),
    ["ViNC", "Edward", "CANADA"],
  );
});

test("words of a banner or a chart in a crop stay, however unsure OCR is of some", () => {
  const banner = [
    word("FAITH", 0.97, "1.1.1"),
    word("NO", 0.55, "1.1.2"),
    word("MORE", 0.55, "1.1.2"),
    word("(was", 0.97, "2.1.1"),
    word("Accumulate)", 0.97, "2.1.1"),
    word("(A/cm2)", 0.78, "3.1.1"),
    word("64", 0.8, "4.1.1"),
    word("76", 0.73, "4.1.1"),
    word("10-31-17", 0.57, "4.1.2"),
    word("#046899", 0.7, "4.1.3"),
    word("‘DARPA,", 0.74, "5.1.1"),
    word("Idiomas", 0.76, "6.1.1"),
    // A name's initials beside a surname OCR was unsure of, which is shaped as a word: no junk in the paragraph.
    word("C.", 0.72, "7.1.1"),
    word("J.", 0.73, "7.1.2"),
    word("CALLADINE", 0.36, "7.1.3"),
  ];
  assert.deepEqual(withoutJunkWords(banner), banner);
});

test("public page: an expense report's logo, a script face over a coastline, yields no heading of junk", {
  timeout: 600_000,
}, async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "pei-expense-disclosure-report.pdf")));
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  assert.doesNotMatch(result.markdown, /\bPri\b|2@|\[sland/, result.markdown);
  assert.match(result.markdown, /^# PUBLIC EXPENSE DISCLOSURE REPORT$/m, result.markdown);
});
