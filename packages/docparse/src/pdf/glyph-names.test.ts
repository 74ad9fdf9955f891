import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { ligatureText } from "./glyph-names.ts";
import { HELVETICA, onePagePdf } from "./test-pdf.ts";

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
  // widths keep the glyphs, absent from the standard font, from reading as gaps; the space's gives the word gap
  // (a space drawn with no width leaves none, and reads as none).
  const font = [
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica",
    "/Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [29 /uni00540068 /T_h] >>",
    "/FirstChar 29 /LastChar 32 /Widths [1170 1170 0 278] >>",
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

/** Type 1 encryption (eexec's key 55665, a charstring's 4330): each byte XORed with a running key. */
function type1Encrypt(plain: readonly number[], key: number): number[] {
  let r = key;
  return plain.map((p) => {
    const c = p ^ (r >> 8);
    r = ((c + r) * 52845 + 22719) & 0xffff;
    return c;
  });
}

/**
 * A Type 1 font program whose built-in encoding puts the glyph `glyph` at code 97 (`a`): its cleartext part, its
 * eexec-encrypted private part (two glyphs, each a blank 500 units wide) and the trailing zeros.
 */
function type1Font(glyph: string): { text: string; length1: number; length2: number; length3: number } {
  const clear = [
    "%!PS-AdobeFont-1.0: SvcTest 001",
    "11 dict begin",
    "/FontInfo 1 dict dup begin end readonly def",
    "/FontName /SvcTest def",
    "/PaintType 0 def",
    "/FontType 1 def",
    "/FontMatrix [0.001 0 0 0.001 0 0] readonly def",
    "/Encoding 256 array 0 1 255 {1 index exch /.notdef put} for",
    `dup 97 /${glyph} put`,
    "readonly def",
    "/FontBBox {0 0 500 700} readonly def",
    "currentdict end",
    "currentfile eexec",
    "",
  ].join("\n");
  // hsbw 0 500, endchar: 0 is 139, 500 is 248 136 in charstring numbers.
  const charstring = type1Encrypt([0, 0, 0, 0, 139, 248, 136, 13, 14], 4330);
  const glyphEntry = (name: string) => [
    ...Buffer.from(`/${name} ${charstring.length} RD `, "latin1"),
    ...charstring,
    ...Buffer.from(" ND\n", "latin1"),
  ];
  const privatePart = [
    ...Buffer.from(
      [
        "dup /Private 8 dict dup begin",
        "/RD{string currentfile exch readstring pop}executeonly def",
        "/ND{noaccess def}executeonly def",
        "/NP{noaccess put}executeonly def",
        "/lenIV 4 def",
        "/BlueValues [] def",
        "/Subrs 0 array",
        "2 index /CharStrings 2 dict dup begin",
        "",
      ].join("\n"),
      "latin1",
    ),
    ...glyphEntry(".notdef"),
    ...glyphEntry(glyph),
    ...Buffer.from(
      "end\nend\nreadonly put\nnoaccess put\ndup/FontName get exch definefont pop\nmark currentfile closefile\n",
      "latin1",
    ),
  ];
  const encrypted = type1Encrypt([0, 0, 0, 0, ...privatePart], 55665);
  const zeroLine = `${"0".repeat(64)}\n`;
  const zeros = `${zeroLine.repeat(8)}cleartomark\n`;
  return {
    text: clear + Buffer.from(encrypted).toString("latin1") + zeros,
    length1: clear.length,
    length2: encrypted.length,
    length3: zeros.length,
  };
}

test("a Type1 font's built-in encoding naming a glyph beyond the BMP (u1D44E) reads as that character", async () => {
  // The font dictionary names no /Encoding: the font program's own encoding says what code 97 draws.
  const font = type1Font("u1D44E");
  const pdf = onePagePdf(
    "BT /F1 12 Tf 72 700 Td (The value of) Tj /F2 12 Tf ( a) Tj /F1 12 Tf ( is small.) Tj ET",
    {
      fonts: [
        HELVETICA,
        "<< /Type /Font /Subtype /Type1 /BaseFont /SvcTest /FirstChar 97 /LastChar 97 /Widths [500] /FontDescriptor 7 0 R >>",
      ],
      objects: [
        "<< /Type /FontDescriptor /FontName /SvcTest /Flags 32 /FontBBox [0 0 500 700] /ItalicAngle 0 /Ascent 700 /Descent 0 /CapHeight 700 /StemV 80 /FontFile 8 0 R >>",
        `<< /Length ${font.text.length} /Length1 ${font.length1} /Length2 ${font.length2} /Length3 ${font.length3} >>\nstream\n${font.text}\nendstream`,
      ],
    },
  );
  const { result } = await parseDocument({ bytes: pdf, mimeType: "application/pdf", options: {} });
  assert.match(result.markdown, /\u{1D44E}/u, result.markdown);
  assert.doesNotMatch(result.markdown, /\uD44E/, result.markdown);
});

test("public: an Elsevier page's title in STIX math italic reads its letters", async () => {
  const file = fileURLToPath(new URL("../../test/real-world/elsevier-cas-dc-sample-p1.pdf", import.meta.url));
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(result.markdown, /This is a specimen \u{1D44E}/u, result.markdown.slice(0, 300));
  assert.doesNotMatch(result.markdown, /[\uD44E\uD44F]/, result.markdown.slice(0, 300));
});
