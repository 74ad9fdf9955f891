import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { renderParagraphsPage } from "./test-support.ts";
import { lineTypeSize, lineTypeSizes } from "./type-size.ts";

test("a lowercase line without descenders measures its type size a fifth larger than its box", () => {
  assert.equal(lineTypeSize(40, "Helvetica"), 50);
  assert.equal(lineTypeSize(50, "typography, set in a page"), 50);
  assert.equal(lineTypeSize(50, "Pt. 2 (Rule II)"), 50);
  assert.equal(lineTypeSize(40, "14/09/16 20:42"), 40);
});

test("a row inflated by a raised mark is measured by its words, at the page's ratio of rows to words", () => {
  const line = (rowHeightPx: number, ...words: [string, number][]) => ({
    rowHeightPx,
    words: words.map(([text, heightPx]) => ({ text, heightPx })),
  });
  // Body lines whose rows measure 46 px where their words say 42 (the page's usual ratio, 46 / 42)...
  const body = line(46, ["Softwareentwicklern", 42], ["ganzen", 42], ["Welt", 33.6], ["Projekten", 42]);
  // ...and a line whose row reaches up to a raised `[7]`: 68 px, its words say 42.
  const marked = line(68, ["Mobiltelefonen,", 42], ["Routern,[7]", 44], ["Netbooks,", 41], ["Embedded", 33]);
  const [a, b, c, d] = lineTypeSizes([body, marked, body, body]);
  assert.deepEqual([a, c, d], [46, 46, 46]);
  assert.ok(Math.abs(b - 46) < 0.5, `${b}`);
  // A row within a third of its words at the page's ratio is the measure, whatever its words (brackets and
  // parentheses reach further than letters).
  assert.deepEqual(
    lineTypeSizes([body, line(52, ...marked.words.map((w): [string, number] => [w.text, w.heightPx]))]),
    [46, 52],
  );
  // Too few words to measure, or marks, lone figures and words of x-height letters alone: the row.
  assert.deepEqual(
    lineTypeSizes([body, body, line(68, ["Routern,[7]", 44], ["Netbooks,", 41])]),
    [46, 46, 68],
  );
  assert.deepEqual(
    lineTypeSizes([body, body, line(70, ["[8]", 20], ["1", 30], ["was", 22], ["wie", 30], ["Linux", 36])]),
    [46, 46, 70],
  );
});

test("a scanned web print's lines with raised reference marks are body text, not headings", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "scan-de-wikipedia-linux.pdf"));
  assert.match(markdown, /^# Linux$/m);
  // Two lines of the second paragraph carry raised `[7]` and `[8]` marks (read `[?]`, `[4115]`).
  assert.doesNotMatch(markdown, /^#+ .*(Mobiltelefonen|Samsung)/m);
  assert.match(markdown, /Servern, Mobiltelefonen, Routern/);
});

test("a scanned page's title line without descenders is the page's title, not a header", {
  timeout: 600_000,
}, async () => {
  // A one-word title over prose, all in 12 pt: the title's letters stop at the baseline, the prose's do not.
  const png = await renderParagraphsPage([
    { text: "Helvetica", font: "DejaVu Sans" },
    {
      text: "Lorem ipsum dolor sit amet, consetetur sadipscing elitr, sed diam nonumy eirmod tempor invidunt ut labore et dolore magna aliquyam erat, sed diam voluptua. At vero eos et accusam et justo duo dolores et ea rebum. Stet clita kasd gubergren, no sea takimata sanctus est lorem ipsum dolor sit amet.",
      font: "DejaVu Sans",
    },
  ]);
  const { result } = await parseDocument({
    bytes: png,
    mimeType: "image/png",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  const at = result.markdown.indexOf("Helvetica");
  assert.ok(at >= 0 && at < result.markdown.indexOf("Lorem ipsum"), result.markdown);
});

test("an office scan's title line stays before its text", { timeout: 600_000 }, async () => {
  await assertPdfFacts("scan-ricoh-lorem-poor-ocr.pdf", [
    { before: ["Helvetica", "Lorem ipsum dolor sit amet"] },
  ]);
});
