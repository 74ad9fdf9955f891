import assert from "node:assert/strict";
import { test } from "node:test";
import { StandardFonts } from "pdf-lib";
import { drawLine, drawParagraph, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

/**
 * Section headers of a real PDF page (pdf-lib, standard fonts): true headings (numbered, bold, larger) become
 * section headers; lines that look like headings but are not (a web address, a keyword set in bold with its
 * arguments in regular type, a lead-in ending in a colon, an `Example 2-1` caption) stay what they are.
 */

type Fragment = { fragment_type: string; content: object };

/** The fragment type of the first fragment whose text starts with `start`. */
function typeOf(fragments: readonly Fragment[], start: string): string {
  const found = fragments.find(
    (f) =>
      "content" in f.content && typeof f.content.content === "string" && f.content.content.startsWith(start),
  );
  assert.ok(found, `no fragment starting "${start}" in ${JSON.stringify(fragments)}`);
  return found.fragment_type;
}

async function fragmentsOf(bytes: Uint8Array) {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return { markdown: result.markdown, fragments: result.pages.flatMap((p) => p.page_fragments ?? []) };
}

const PROSE =
  "Body text is set in ten point type and makes up most of the characters of the page, so that its size is the " +
  "size against which headings are judged. A paragraph of several lines of it follows every heading here.";

async function headingsPage(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const body = { x: 72, width: 468, font: fonts.regular, size: 10 };
  let top = 72;
  const heading = (text: string, size: number) => {
    drawLine(page, text, 72, top, fonts.bold, size);
    top += size * 2;
  };
  const paragraph = () => {
    top = drawParagraph(page, PROSE, { ...body, top }).next + 6;
  };
  heading("A Report on Headings", 20);
  heading("1 Introduction", 16);
  paragraph();
  heading("1.1 Scope of the study", 13);
  paragraph();
  // A web address in larger bold type: it names no section.
  drawLine(page, "www.example.org/reports", 72, top, fonts.bold, 13);
  top += 26;
  paragraph();
  // A keyword in bold with its argument in regular type, larger than the body: syntax, not a heading.
  drawLine(page, "CREATE TABLE", 72, top, fonts.bold, 12);
  drawLine(
    page,
    "<table name>",
    72 + fonts.bold.widthOfTextAtSize("CREATE TABLE", 12) + 6,
    top,
    fonts.regular,
    12,
  );
  top += 24;
  paragraph();
  // A bold caption of an example.
  drawLine(page, "Example 2-1 Listing the tables of a schema", 72, top, fonts.bold, 10);
  top += 20;
  paragraph();
  heading("Results", 13);
  paragraph();
  // A larger bold line ending in a colon introduces what follows.
  heading("For more details see:", 13);
  paragraph();
  return pdfBytes(pdf);
}

test("true headings are section headers; a web address, bold syntax, a lead-in and an example caption are not", async () => {
  const { markdown, fragments } = await fragmentsOf(await headingsPage());
  const type = (start: string) => typeOf(fragments, start);
  assert.equal(type("1 Introduction"), "section_header");
  assert.equal(type("1.1 Scope of the study"), "section_header");
  assert.equal(type("Results"), "section_header");
  assert.notEqual(type("www.example.org/reports"), "section_header");
  assert.notEqual(type("CREATE TABLE"), "section_header");
  assert.notEqual(type("For more details see:"), "section_header");
  assert.equal(type("Example 2-1 Listing"), "figure_caption");
  const headers = markdown
    .split("\n")
    .filter((line) => line.startsWith("#"))
    .map((line) => line.replace(/^#+ /, ""));
  assert.deepEqual(
    headers,
    ["A Report on Headings", "1 Introduction", "1.1 Scope of the study", "Results"],
    markdown,
  );
});

/**
 * Serif body text whose subheadings are set a point larger in a sans font, each directly above its paragraph
 * at the paragraph's own line pitch and numbered `(1)`: the heading line is its own block and a section header,
 * not the first line of the paragraph nor a list item. A `(3)` item in the body's font and size stays a list item.
 */
test("a line a little larger in another font, above its paragraph, is a section header even when numbered (1)", async () => {
  const { pdf } = await newPdf();
  const serif = await pdf.embedFont(StandardFonts.TimesRoman);
  const sans = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([612, 792]);
  const body = { x: 72, width: 468, font: serif, size: 10 };
  let top = 72;
  for (const title of ["(1) Scope of the amendment", "(2) Terms defined by the standard"]) {
    drawLine(page, title, 72, top, sans, 11);
    top = drawParagraph(page, PROSE, { ...body, top: top + 12.5 }).next;
    top = drawParagraph(page, PROSE, { ...body, top }).next;
  }
  drawLine(page, "(3) an item of a list set in the body's own font and size", 72, top, serif, 10);
  top += 12.5;
  drawParagraph(page, PROSE, { ...body, top: top + 6 });
  const { markdown, fragments } = await fragmentsOf(await pdfBytes(pdf));
  assert.equal(typeOf(fragments, "(1) Scope of the amendment"), "section_header", markdown);
  assert.equal(typeOf(fragments, "(2) Terms defined by the standard"), "section_header", markdown);
  assert.equal(typeOf(fragments, "Body text is set"), "text", markdown);
  assert.equal(typeOf(fragments, "an item of a list"), "list_item", markdown);
});

/**
 * Bold larger lines that are labels, not headings: three side by side on one row (the boxes of a diagram) and
 * three unnumbered taglines stacked with no text between them. A true heading on the same page stays one, and
 * so do two numbered headings stacked without text (`2 Methods` over `2.1 Data`).
 */
test("labels side by side on a row and unnumbered taglines stacked together are not section headers", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const body = { x: 72, width: 468, font: fonts.regular, size: 10 };
  const taglines = ["Plan the work ahead", "Share what you learn", "Keep every record safe"];
  for (const [i, text] of taglines.entries()) drawLine(page, text, 72, 60 + i * 40, fonts.bold, 14);
  let top = drawParagraph(page, PROSE, { ...body, top: 190 }).next;
  drawLine(page, "Overview", 72, top, fonts.bold, 14);
  top = drawParagraph(page, PROSE, { ...body, top: top + 28 }).next;
  const labels = ["Intake desk", "Review board", "Archive room"];
  for (const [i, text] of labels.entries()) drawLine(page, text, 72 + i * 160, top, fonts.bold, 12);
  top = drawParagraph(page, PROSE, { ...body, top: top + 30 }).next;
  drawLine(page, "2 Methods", 72, top, fonts.bold, 14);
  drawLine(page, "2.1 Data", 72, top + 28, fonts.bold, 14);
  drawParagraph(page, PROSE, { ...body, top: top + 56 });
  const { markdown, fragments } = await fragmentsOf(await pdfBytes(pdf));
  for (const text of [...taglines, ...labels])
    assert.notEqual(typeOf(fragments, text), "section_header", text);
  for (const text of ["Overview", "2 Methods", "2.1 Data"])
    assert.equal(typeOf(fragments, text), "section_header", `${text}\n${markdown}`);
});
