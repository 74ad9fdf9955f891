import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { documentNumber } from "./document-number.ts";

const FURNITURE = ["page_header", "page_footer", "page_number"] as const;

test("document numbers: digit groups with a short prefix and kind code; not dates, words or short numbers", () => {
  for (const text of [
    "5,901,666",
    "US 2005/0123456 A1",
    "EP 1 234 567 B1",
    "No. 12-3456",
    "US 6,123,456 B2",
  ]) {
    assert.ok(documentNumber(text), text);
  }
  for (const text of [
    "2023",
    "12/05/2021",
    "2021-05-12",
    "Annual Report 2023",
    "$5,901,666",
    "Page 12345 of",
  ]) {
    assert.ok(!documentNumber(text), text);
  }
});

/** A page headed by `head` at `headSize` pt, centered over two columns of 8 pt text. */
function numberedPage(head: string, headSize: number): Uint8Array {
  const lines = [
    `BT /F1 ${headSize} Tf 260 736 Td (${head}) Tj ET`,
    "BT /F1 8 Tf 120 712 Td (1) Tj ET",
    "BT /F1 8 Tf 400 712 Td (2) Tj ET",
    "BT /F1 9 Tf 90 690 Td (FIELD OF THE INVENTION) Tj ET",
  ];
  const sentence = "the text of the column runs on in plain words over the line";
  for (let i = 0; i < 20; i++) {
    lines.push(`BT /F1 8 Tf 60 ${670 - 11 * i} Td (Left ${sentence} ${i + 1}.) Tj ET`);
    lines.push(`BT /F1 8 Tf 320 ${670 - 11 * i} Td (Right ${sentence} ${i + 1}.) Tj ET`);
  }
  return onePagePdf(lines.join("\n"));
}

async function markdownOf(bytes: Uint8Array, ignore: readonly string[]): Promise<string> {
  return (await parsed(bytes, ignore)).markdown;
}

async function parsed(bytes: Uint8Array, ignore: readonly string[]) {
  const { result } = await parseDocument({
    bytes,
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: [...ignore] as (typeof FURNITURE)[number][] } },
  });
  return result;
}

test("a document number heading a single page, a size up from the body, is a page header", async () => {
  const bytes = numberedPage("5,901,666", 12);
  const without = await markdownOf(bytes, FURNITURE);
  assert.ok(!without.includes("5,901,666"), without);
  assert.match(without, /Left the text of the column/);
  // Labelled a page header, its text kept in the page's fragments.
  const fragments = (await parsed(bytes, [])).pages.flatMap((page) => page.page_fragments ?? []);
  const head = fragments.find((f) => f.content.content.includes("5,901,666"));
  assert.equal(head?.fragment_type, "page_header");
});

test("a number in display type heading a page stays", async () => {
  const markdown = await markdownOf(numberedPage("1,250,000", 24), FURNITURE);
  assert.ok(markdown.includes("1,250,000"), markdown);
});

test("the patent page's number over its columns is furniture", async () => {
  const file = path.join(REAL_WORLD_DIR, "patent-pet-display-p3.pdf");
  const markdown = await engineMarkdown(file, [...FURNITURE]);
  assert.ok(!markdown.includes("5,901,666"), markdown.slice(0, 500));
  assert.match(markdown, /PET DISPLAY CLOTHING/);
});
