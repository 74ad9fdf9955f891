import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "./test-pdf.ts";

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
