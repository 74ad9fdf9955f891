import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { renderParagraphsPage } from "./test-support.ts";
import { lineTypeSize } from "./type-size.ts";

test("a lowercase line without descenders measures its type size a fifth larger than its box", () => {
  assert.equal(lineTypeSize(40, "Helvetica"), 50);
  assert.equal(lineTypeSize(50, "typography, set in a page"), 50);
  assert.equal(lineTypeSize(50, "Pt. 2 (Rule II)"), 50);
  assert.equal(lineTypeSize(40, "14/09/16 20:42"), 40);
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
