import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { HELVETICA, onePagePdf } from "./test-pdf.ts";

/** Three columns of four characters each, written right to left: CIDs 1–12 in this order. */
const COLUMNS = ["天地玄黄", "宇宙洪荒", "日月盈昃"];

const toUnicode = (() => {
  const chars = [...COLUMNS.join("")];
  const pairs = chars.map((c, i) => `<${hex(i + 1)}> <${c.codePointAt(0)?.toString(16).padStart(4, "0")}>`);
  const map = [
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap",
    "/CMapName /Adobe-Identity-UCS def /CMapType 2 def",
    "1 begincodespacerange <0000> <FFFF> endcodespacerange",
    `${pairs.length} beginbfchar ${pairs.join(" ")} endbfchar`,
    "endcmap CMapName currentdict /CMap defineresource pop end end",
  ].join("\n");
  return `<< /Length ${map.length} >>\nstream\n${map}\nendstream`;
})();

function hex(code: number): string {
  return code.toString(16).padStart(4, "0");
}

/** A Type0 font writing down the page (`Identity-V`), not embedded, its codes mapped by a ToUnicode. */
const VERTICAL_FONT =
  "<< /Type /Font /Subtype /Type0 /BaseFont /MS-Mincho /Encoding /Identity-V /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>";
const CID_FONT =
  "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /MS-Mincho /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 8 0 R /DW 1000 >>";
const DESCRIPTOR =
  "<< /Type /FontDescriptor /FontName /MS-Mincho /Flags 4 /FontBBox [0 -120 1000 880] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>";

/** The columns set from the right, their tops level; the last one drawn in two pieces, one under the other. */
function verticalPage(): Uint8Array {
  const codes = (from: number, count: number) =>
    `<${Array.from({ length: count }, (_, i) => hex(from + i)).join("")}>`;
  const content = [
    "BT /F1 14 Tf",
    `1 0 0 1 400 700 Tm ${codes(1, 4)} Tj`,
    `1 0 0 1 376 700 Tm ${codes(5, 4)} Tj`,
    `1 0 0 1 352 700 Tm ${codes(9, 2)} Tj`,
    `1 0 0 1 352 672 Tm ${codes(11, 2)} Tj`,
    "ET",
  ].join("\n");
  return onePagePdf(content, { fonts: [VERTICAL_FONT], objects: [CID_FONT, toUnicode, DESCRIPTOR] });
}

test("vertical writing reads its columns from the right, each column whole", async () => {
  const { result } = await parseDocument({ bytes: verticalPage(), mimeType: "application/pdf" });
  const at = COLUMNS.map((column) => result.markdown.indexOf(column));
  assert.ok(
    at.every((i) => i >= 0),
    result.markdown,
  );
  assert.ok(at[0] < at[1] && at[1] < at[2], result.markdown);
});

test("public: a vertical Chinese page reads its columns from the right, a sentence run on into the next column", async () => {
  await assertPdfFacts("zh-fandol-vertical-p2.pdf", [
    { before: ["吾生也有涯", "缘督以为经"] },
    { before: ["以有涯随无涯", "可以养亲"] },
    { present: "为恶无近刑" },
  ]);
});

test("public: a vertical Japanese page with ruby reads its columns from the right", async () => {
  await assertPdfFacts("ja-pxrubrica-tategaki-p1.pdf", [
    { before: ["君子は和して同ぜず", "人に誨えて倦まず"] },
    { before: ["人に誨えて倦まず", "鬼門の方角を凝視する"] },
    { before: ["茅場町", "紫陽花"] },
  ]);
});

/** The vertical page's font with Helvetica and its bold as /F2 and /F3: the objects it refers to numbered after them. */
const MIXED_FONTS = [
  VERTICAL_FONT.replace("[6 0 R]", "[8 0 R]").replace("7 0 R >>", "9 0 R >>"),
  HELVETICA,
  HELVETICA.replace("/Helvetica", "/Helvetica-Bold"),
];
const MIXED_OBJECTS = [CID_FONT.replace("8 0 R", "10 0 R"), toUnicode, DESCRIPTOR];

/** Four columns set down the page's top half, and under them two lines set across, each a plain and a bold word. */
function mixedPage(): Uint8Array {
  const codes = (from: number, count: number) =>
    `<${Array.from({ length: count }, (_, i) => hex(from + i)).join("")}>`;
  const content = [
    "BT /F1 14 Tf",
    `1 0 0 1 400 700 Tm ${codes(1, 4)} Tj`,
    `1 0 0 1 376 700 Tm ${codes(5, 4)} Tj`,
    `1 0 0 1 352 700 Tm ${codes(9, 4)} Tj`,
    `1 0 0 1 328 700 Tm ${codes(1, 4)} Tj`,
    "ET",
    "BT",
    "/F2 12 Tf 1 0 0 1 330 560 Tm (Go) Tj /F3 12 Tf 1 0 0 1 349 560 Tm (on) Tj",
    "/F2 12 Tf 1 0 0 1 330 544 Tm (Do) Tj /F3 12 Tf 1 0 0 1 349 544 Tm (so) Tj",
    "ET",
  ].join("\n");
  return onePagePdf(content, { fonts: MIXED_FONTS, objects: MIXED_OBJECTS });
}

test("lines set across a page read turned for its vertical writing stay lines, after the columns above them", async () => {
  const { result } = await parseDocument({ bytes: mixedPage(), mimeType: "application/pdf" });
  const at = [COLUMNS[0], COLUMNS[2], "Go on", "Do so"].map((text) => result.markdown.indexOf(text));
  assert.ok(
    at.every((i) => i >= 0),
    result.markdown,
  );
  assert.ok(at[0] < at[1] && at[1] < at[2] && at[2] < at[3], result.markdown);
});

test("public: a tategaki page reads the lines it sets across whole, in order, after its columns", async () => {
  await assertPdfFacts("ja-pxrubrica-tategaki-p1.pdf", [
    { present: "模型 利用許諾" },
    { before: ["の象 徴を", "模型 利用許諾"] },
    { before: ["模型 利用許諾", "なげきの聖母像"] },
    { before: ["なげきの聖母像", "顧 客 境 界 面"] },
  ]);
});
