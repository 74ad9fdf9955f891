import assert from "node:assert/strict";
import { test } from "node:test";
import { rgb } from "pdf-lib";
import { drawLine, drawParagraph, newPdf, PAGE_HEIGHT, pdfBytes } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";

/**
 * Boxes or cards side by side, each a title over a short paragraph, are layout: no table, whether the cards are
 * shaded, drawn as adjoining ruled boxes, or bare text in columns. A table of wrapped cells stays a table.
 */

type Style = "shaded" | "ruled" | "bare";

const CARDS = [
  ["Plan", "Pick the plan that fits your team and budget."],
  ["Build", "Design forms and flows with simple blocks."],
  ["Launch", "Share a link and collect answers right away."],
  ["Learn", "See results in charts and export them anytime."],
];

async function cardsPage(style: Style, width: number, cards = CARDS): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const step = style === "ruled" ? width : width + 18;
  cards.forEach(([title, body], i) => {
    const x = 54 + i * step;
    const y = PAGE_HEIGHT - 210;
    if (style === "shaded") page.drawRectangle({ x, y, width, height: 110, color: rgb(0.92, 0.94, 0.98) });
    if (style === "ruled")
      page.drawRectangle({ x, y, width, height: 110, borderColor: rgb(0, 0, 0), borderWidth: 0.8 });
    drawLine(page, title, x + 10, 110, fonts.bold, 12);
    drawParagraph(page, body, { x: x + 10, top: 132, width: width - 20, font: fonts.regular, size: 10 });
  });
  return pdfBytes(pdf);
}

async function markdownOf(bytes: Uint8Array): Promise<{ markdown: string; tables: number }> {
  const { result } = await parseDocument({
    bytes,
    mimeType: "application/pdf",
    options: { parsing: { table_output_mode: "markdown" } },
  });
  const fragments = result.pages.flatMap((p) => p.page_fragments ?? []);
  const tables = fragments.filter((f) => f.fragment_type === "table");
  return { markdown: result.markdown, tables: tables.length };
}

for (const style of ["shaded", "ruled", "bare"] as const) {
  test(`four ${style} cards side by side are no table, and each card's text reads whole`, async () => {
    const { markdown, tables } = await markdownOf(await cardsPage(style, 120));
    assert.equal(tables, 0, markdown);
    for (const [title, body] of CARDS) {
      assert.ok(markdown.includes(title), title);
      assert.ok(markdown.replace(/\s+/g, " ").includes(body), body);
    }
  });
}

test("three wider ruled boxes side by side are no table either", async () => {
  const cards = [
    ["Fast setup", "Connect your account in minutes and start sending invoices the same day."],
    ["Secure storage", "Every file is encrypted at rest and in transit with keys you control."],
    ["Friendly support", "Our team answers questions by chat and email around the clock."],
  ];
  const { markdown, tables } = await markdownOf(await cardsPage("ruled", 168, cards));
  assert.equal(tables, 0, markdown);
});

test("shaded cards of short lines side by side are no table: each column sits in a box of its own", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const cards = [
    ["Fast", "Set up in minutes.", "No code needed.", "Works offline."],
    ["Safe", "Encrypted storage.", "Daily backups.", "Audit logs."],
    ["Open", "Export any time.", "Plain formats.", "Public API."],
  ];
  cards.forEach((lines, i) => {
    const x = 54 + i * 174;
    page.drawRectangle({ x, y: PAGE_HEIGHT - 190, width: 156, height: 90, color: rgb(0.92, 0.94, 0.98) });
    lines.forEach((text, k) => {
      drawLine(page, text, x + 10, 110 + 16 * k, k === 0 ? fonts.bold : fonts.regular, k === 0 ? 12 : 10);
    });
  });
  const { markdown, tables } = await markdownOf(await pdfBytes(pdf));
  assert.equal(tables, 0, markdown);
  for (const text of cards.flat()) assert.ok(markdown.includes(text), text);
});

test("two narrow columns of prose side by side are layout, read one after the other", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const left =
    "The river rose slowly through the night and by morning the lower fields were under water. Farmers moved their animals to the ridge before dawn.";
  const right =
    "Relief crews arrived at noon with boats and food. They worked until dark to reach the farms cut off by the water.";
  drawParagraph(page, left, { x: 72, top: 100, width: 90, font: fonts.regular, size: 10 });
  drawParagraph(page, right, { x: 186, top: 100, width: 90, font: fonts.regular, size: 10 });
  const { markdown, tables } = await markdownOf(await pdfBytes(pdf));
  assert.equal(tables, 0, markdown);
  const flat = markdown.replace(/\s+/g, " ");
  assert.ok(flat.includes(left) && flat.includes(right), markdown);
  assert.ok(flat.indexOf(left) < flat.indexOf(right));
});

test("an unruled table whose cells wrap in two columns at once keeps its rows, one per item", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const rows = [
    ["Item", "Use", "Note", "Price"],
    ["Drill", "holes in wood and", "sold with two", "49.00"],
    ["", "light metal sheets", "spare batteries", ""],
    ["Saw", "cutting boards", "blade included", "25.50"],
    ["Sander", "smoothing edges", "dust bag extra", "39.90"],
    ["Clamp", "holding parts", "pair", "12.00"],
  ];
  rows.forEach((row, r) => {
    row.forEach((cell, c) => {
      if (cell)
        drawLine(
          page,
          cell,
          72 + [0, 90, 220, 350][c],
          100 + 14 * r,
          r === 0 ? fonts.bold : fonts.regular,
          10,
        );
    });
  });
  const { markdown, tables } = await markdownOf(await pdfBytes(pdf));
  assert.equal(tables, 1, markdown);
  assert.match(
    markdown,
    /\| Drill \| holes in wood and light metal sheets \| sold with two spare batteries \| 49\.00 \|/,
  );
  assert.match(markdown, /\| Clamp \| holding parts \| pair \| 12\.00 \|/);
});
