import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { ligatureText } from "./glyph-names.ts";
import { onePagePdf } from "./test-pdf.ts";

test("a ligature's glyph name gives its characters by the glyph list's conventions", () => {
  assert.equal(ligatureText("fi"), "fi");
  assert.equal(ligatureText("ffl"), "ffl");
  assert.equal(ligatureText("f_f_i"), "ffi");
  assert.equal(ligatureText("T_h"), "Th");
  assert.equal(ligatureText("f_i.alt"), "fi");
  assert.equal(ligatureText("uni00660069"), "fi");
  assert.equal(ligatureText("u1F600_a"), "\u{1F600}a");
  // One character, or a name not read here, is no ligature.
  for (const name of ["i", "uni0069", "quoteright", "f_quoteright", "uniD800DC00", ".notdef", ""])
    assert.equal(ligatureText(name), null, name);
});

/** A CMap stream mapping each one-byte code to the given UTF-16 hex. */
function toUnicode(map: Record<number, string>): string {
  const hex = (n: number) => n.toString(16).padStart(2, "0");
  const entries = Object.entries(map).map(([code, text]) => `<${hex(Number(code))}> <${text}>`);
  const body = [
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def",
    "1 begincodespacerange <00> <ff> endcodespacerange",
    `${entries.length + 1} beginbfchar <20> <0020> ${entries.join(" ")} endbfchar`,
    "endcmap CMapName currentdict /CMap defineresource pop end end",
  ].join("\n");
  return `<< /Length ${body.length} >>\nstream\n${body}\nendstream`;
}

/** Ascii letters for the codes 0x61–0x7a, as a ToUnicode that maps them (written out) needs. */
const LETTERS = Object.fromEntries(
  Array.from({ length: 26 }, (_, i) => [0x61 + i, (0x61 + i).toString(16).padStart(4, "0")]),
);

async function markdownOf(pdf: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes: pdf, mimeType: "application/pdf" });
  return result.markdown;
}

test("ligature glyphs a ToUnicode maps to one letter or to nothing read as their glyph names say", async () => {
  // Codes 28–31 name the glyphs fi, fl, T_h and f_f_i; the ToUnicode reads them i, l, h and nothing.
  const font = [
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica",
    "/Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [28 /fi /fl /T_h /f_f_i] >>",
    "/ToUnicode 6 0 R >>",
  ].join(" ");
  const map = { ...LETTERS, 28: "0069", 29: "006c", 30: "0068", 84: "0054" };
  const content = [
    "BT /F1 12 Tf 72 700 Td (\\036e de\\034nition of \\035ow) Tj ET",
    // A word with a glyph read as nothing, and a real "he" in the same font, which stays.
    "BT /F1 12 Tf 72 670 Td (an o\\037ce he said) Tj ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content, { fonts: [font], objects: [toUnicode(map)] }));
  assert.match(markdown, /The definition of flow/);
  assert.match(markdown, /an office he said/);
  assert.doesNotMatch(markdown, /deinition|\bow\b/);
});

test("ligature glyphs of a font without a ToUnicode read as their glyph names say", async () => {
  // pdf.js reads neither name (its glyph list has no T_h, and a uni name of two characters it leaves out). The
  // widths keep the glyphs, absent from the standard font, from reading as gaps.
  const font = [
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica",
    "/Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [29 /uni00540068 /T_h] >>",
    "/FirstChar 29 /LastChar 30 /Widths [1170 1170] >>",
  ].join(" ");
  const content = "BT /F1 12 Tf 72 700 Td (\\035e \\036eory) Tj ET";
  const markdown = await markdownOf(onePagePdf(content, { fonts: [font] }));
  assert.match(markdown, /The Theory/);
});

test("public: a report page whose fonts map fi, fl and Th to one letter reads The and definition", async () => {
  const file = fileURLToPath(new URL("../../test/real-world/mmwr-housing-p1.pdf", import.meta.url));
  const markdown = await markdownOf(new Uint8Array(readFileSync(file)));
  assert.match(markdown, /\(3\)\. The U\.S\. Census Bureau/);
  assert.match(markdown, /whereas the definition of/);
  assert.doesNotMatch(markdown, /deinition|\. he /);
});
