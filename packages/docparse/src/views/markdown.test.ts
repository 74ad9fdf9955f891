import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import MarkdownIt from "markdown-it";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import type { DocItem } from "../model.ts";
import { itemsToMarkdown } from "./markdown.ts";

// A nested list's items keep their printed markers (`(b)`, `c.`), and the nesting renders as a list in a
// CommonMark renderer: an item whose marker CommonMark does not read is written as a bullet keeping its marker.

const commonmark = new MarkdownIt("commonmark");

function listItem(text: string, marker: string, depth: number): DocItem {
  return {
    id: "",
    readingOrder: 0,
    furniture: false,
    prov: [],
    label: "list_item",
    text,
    ordered: marker !== "-",
    marker,
    depth,
  };
}

test("nested items marked `(a)`, `b.` render as a nested list and keep their markers", () => {
  const markdown = itemsToMarkdown(
    [
      listItem("The tenant shall:", "1.", 0),
      listItem("pay the rent;", "(a)", 1),
      listItem("keep the rooms clean.", "b.", 1),
      listItem("The landlord shall repair the roof.", "(2)", 0),
    ],
    { tableOutputMode: "html" },
  );
  assert.equal(
    markdown,
    "1. The tenant shall:\n    - (a) pay the rent;\n    - b. keep the rooms clean.\n- (2) The landlord shall repair the roof.",
  );
  const html = commonmark.render(markdown);
  assert.match(
    html,
    /<li>The tenant shall:\n<ul>\n<li>\(a\) pay the rent;<\/li>\n<li>b\. keep the rooms clean\.<\/li>/,
  );
});

test("a flat list keeps its printed markers as written", () => {
  const markdown = itemsToMarkdown([listItem("one;", "(a)", 0), listItem("two.", "(b)", 0)], {
    tableOutputMode: "html",
  });
  assert.equal(markdown, "(a) one;\n(b) two.");
});

test("a made page's sub-items `(a)`, `(b)` under `1.` render as a nested list", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const lines: [number, string][] = [
    [72, "1. Prepare the site before the work starts."],
    [96, "(a) Remove the old fence and its posts."],
    [96, "(b) Level the ground along the boundary."],
    [72, "2. Build the new fence along the line agreed."],
  ];
  lines.forEach(([x, text], i) => {
    page.drawText(text, { x, y: 700 - i * 18, size: 11, font: fonts.regular });
  });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  const html = commonmark.render(result.markdown);
  assert.match(html, /<ul>\n<li>\(a\) Remove the old fence/, result.markdown);
  assert.match(html, /<li>\(b\) Level the ground/, result.markdown);
});

test("a form's instructions: `a.` under `2.` render as a nested list", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "irs-i1040nr-p1.pdf")));
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  const html = commonmark.render(result.markdown);
  assert.match(html, /<li>a\. Children age 18 at the end of/, result.markdown.slice(0, 3000));
});
