import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

/**
 * Section headers of a real PDF page (pdf-lib, standard fonts): true headings (numbered, bold, larger) become
 * section headers; lines that look like headings but are not (a web address, a keyword set in bold with its
 * arguments in regular type, an `Example 2-1` caption) stay what they are.
 */

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
  return pdfBytes(pdf);
}

test("true headings are section headers; a web address, bold syntax and an example caption are not", async () => {
  const { result } = await parseDocument({
    bytes: await headingsPage(),
    mimeType: "application/pdf",
    options: {},
  });
  const fragments = result.pages.flatMap((p) => p.page_fragments ?? []);
  const typeOf = (start: string) => {
    const found = fragments.find((f) => "content" in f.content && f.content.content.startsWith(start));
    assert.ok(found, `no fragment starting "${start}" in ${JSON.stringify(fragments)}`);
    return found.fragment_type;
  };
  assert.equal(typeOf("1 Introduction"), "section_header");
  assert.equal(typeOf("1.1 Scope of the study"), "section_header");
  assert.equal(typeOf("Results"), "section_header");
  assert.notEqual(typeOf("www.example.org/reports"), "section_header");
  assert.notEqual(typeOf("CREATE TABLE"), "section_header");
  assert.equal(typeOf("Example 2-1 Listing"), "figure_caption");
  const headers = result.markdown
    .split("\n")
    .filter((line) => line.startsWith("#"))
    .map((line) => line.replace(/^#+ /, ""));
  assert.deepEqual(
    headers,
    ["A Report on Headings", "1 Introduction", "1.1 Scope of the study", "Results"],
    result.markdown,
  );
});
