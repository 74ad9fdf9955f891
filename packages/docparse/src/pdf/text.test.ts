import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import { textRun } from "../paginated/test-geometry.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { onePagePdf } from "./test-pdf.ts";
import { dropUnmapped, typeExtent, withoutOverprints } from "./text.ts";

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

test("a word space drawn as its own narrow glyph keeps the words apart; kerning without one does not split", async () => {
  // The space's advance is cut to about a twentieth of an em by character spacing, as tight table cells set it.
  const content = [
    "BT /F1 10 Tf 72 700 Td (Ferry) Tj -2.2 Tc ( ) Tj 0 Tc (Tides) Tj ET",
    "BT /F1 10 Tf 72 650 Td [(Har) 40 (bour)] TJ ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content));
  assert.match(markdown, /Ferry Tides/);
  assert.match(markdown, /Harbour/);
});

test("font metrics spanning far more than an em (a bounding box) fall back to type's usual extent", () => {
  assert.deepEqual(typeExtent({ ascent: 1.809, descent: -1.049, vertical: false }), {
    ascent: 0.8,
    descent: -0.2,
  });
  assert.deepEqual(typeExtent({ ascent: 0.905, descent: -0.212, vertical: false }), {
    ascent: 0.905,
    descent: -0.212,
  });
  assert.deepEqual(typeExtent(undefined), { ascent: 0.8, descent: -0.2 });
});

test("public: a diagram's two-line labels in Noto Sans CJK stay two lines, each word apart", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data/pdf/sources/skipped_1page.pdf");
  const markdown = await markdownOf(new Uint8Array(readFileSync(file)));
  assert.doesNotMatch(markdown, /Connected초연결|ConnectedNetworking|ControlInterfaces/);
  assert.match(markdown, /\(Hyper-Connected\s+Networking\)/);
});

test("public: Korean table cells set with narrow space glyphs keep their word spaces", {
  skip: NO_CORPUS,
}, async () => {
  const file = corpusPath("docling/tests/data/pdf/sources/normal_4pages.pdf");
  const markdown = await markdownOf(new Uint8Array(readFileSync(file)));
  assert.match(markdown, /마시는 물 또는 식품을 매개로/);
});

test("dropUnmapped removes the U+FFFD of unmapped runs, and runs left blank; other runs keep theirs", () => {
  const b = { x1: 0, y1: 0, x2: 40, y2: 10 };
  const runs = [
    { ...textRun("Caf\uFFFD", b), unmapped: true },
    { ...textRun("\uFFFD\uFFFD\uFFFD", b), unmapped: true },
    textRun("odd \uFFFD", b),
  ];
  assert.deepEqual(
    dropUnmapped(runs).map((run) => [run.text, run.unmapped]),
    [
      ["Caf", undefined],
      ["odd \uFFFD", undefined],
    ],
  );
});

test("text drawn twice in place (a bolder look) is read once; the same word elsewhere stays", async () => {
  const content = [
    "BT /F1 11 Tf 72 700 Td (ENFORCED FOR ALL ACCESS) Tj ET",
    "BT /F1 11 Tf 72.2 700 Td (ENFORCED FOR ALL ACCESS) Tj ET",
    "BT /F1 11 Tf 72 650 Td (ENFORCED FOR ALL ACCESS) Tj ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content));
  assert.equal(markdown.match(/ENFORCED FOR ALL ACCESS/g)?.length, 2, markdown);
  assert.doesNotMatch(markdown, /ACCESSENFORCED/);
  const b = { x1: 10, y1: 10, x2: 50, y2: 20 };
  assert.equal(
    withoutOverprints([textRun("a", b), textRun("a", { ...b, x1: 10.3 }), textRun("b", b)]).length,
    2,
  );
});

test("public: redp5110's keywords drawn twice for a bolder look read once", { skip: NO_CORPUS }, async () => {
  const file = corpusPath("docling/tests/data/pdf/sources/redp5110_sampled.pdf");
  const markdown = await markdownOf(new Uint8Array(readFileSync(file)));
  assert.match(markdown, /ENFORCED FOR ALL ACCESS/);
  assert.doesNotMatch(markdown, /ACCESSENFORCED|ENABLEENABLE|ALICESigned/);
});
