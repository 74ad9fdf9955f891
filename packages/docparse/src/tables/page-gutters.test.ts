import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { PDFFont, PDFPage } from "pdf-lib";
import { drawLine, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { factHolds, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";

/**
 * A dense page of columns set close together (a cheat sheet, a reference card): lines of the columns share
 * baselines, and rows of a command and its meaning in each column line up like one table's across the page. The
 * page's gutters (strips no line crosses down the page, a justified margin on their left) bound every table: each
 * column is read down, its own tables inside it.
 */

async function pageTables(bytes: Uint8Array) {
  const doc = await openPdf(bytes);
  try {
    return tableStage(await extractPdfPage(doc, 1));
  } finally {
    await doc.destroy();
  }
}

const PROSE =
  "Each command below is typed in the source of the document where its effect is wanted and the mark up that " +
  "follows it takes its argument in braces so that the reader of the source can tell at a glance which words " +
  "the command changes and which words it leaves as they are written";

/** A justified paragraph: every line but the last spread to the full width, one word drawn at a time. */
function justified(
  page: PDFPage,
  text: string,
  x: number,
  top: number,
  width: number,
  font: PDFFont,
): number {
  const size = 8;
  const lines: string[][] = [[]];
  for (const word of text.split(" ")) {
    const line = lines[lines.length - 1];
    if (line.length > 0 && font.widthOfTextAtSize([...line, word].join(" "), size) > width)
      lines.push([word]);
    else line.push(word);
  }
  lines.forEach((words, k) => {
    const inked = words.reduce((sum, w) => sum + font.widthOfTextAtSize(w, size), 0);
    const space =
      k < lines.length - 1 ? (width - inked) / (words.length - 1) : font.widthOfTextAtSize(" ", size);
    let at = x;
    for (const word of words) {
      drawLine(page, word, at, top + 10 * k, font, size);
      at += font.widthOfTextAtSize(word, size) + space;
    }
  });
  return top + 10 * lines.length;
}

/** Three columns 15 pt apart, each a heading, a justified paragraph and rows of a command and its meaning. */
async function cheatSheet(): Promise<{ bytes: Uint8Array; columns: { x1: number; x2: number }[] }> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([842, 595]);
  const width = 255;
  const columns = [0, 1, 2].map((c) => ({ x1: 28 + c * (width + 15), x2: 28 + c * (width + 15) + width }));
  const topics = [
    [
      "Fonts",
      ["textbf", "bold"],
      ["textit", "italic"],
      ["texttt", "typewriter"],
      ["emph", "emphasis"],
      ["textsc", "caps"],
    ],
    [
      "Sizes",
      ["tiny", "smallest"],
      ["small", "smaller"],
      ["large", "larger"],
      ["huge", "huger"],
      ["Huge", "hugest"],
    ],
    [
      "Lists",
      ["itemize", "bullets"],
      ["enumerate", "numbers"],
      ["item", "an entry"],
      ["label", "a mark"],
      ["ref", "a reference"],
    ],
  ] as const;
  columns.forEach((column, c) => {
    const [title, ...rows] = topics[c];
    let top = 40;
    for (const part of [1, 2]) {
      drawLine(page, `${title} ${part}`, column.x1, top, fonts.bold, 10);
      top += 14;
      for (const [command, meaning] of rows) {
        drawLine(page, `\\${command}{text}`, column.x1, top, fonts.mono, 8);
        drawLine(page, meaning, column.x1 + 110, top, fonts.regular, 8);
        top += 10;
      }
      const words = PROSE.split(" ");
      const text = [...words.slice(7 * c + part), ...words.slice(0, 7 * c + part)].join(" ");
      top = justified(page, text, column.x1, top + 2, width, fonts.regular) + 12;
    }
  });
  return { bytes: await pdfBytes(pdf), columns };
}

test("a cheat sheet of three close columns drawn with pdf-lib: no table crosses a gutter, each column is read down", async () => {
  const { bytes, columns } = await cheatSheet();
  const tables = await pageTables(bytes);
  for (const table of tables)
    assert.ok(
      columns.some((c) => table.box.x1 >= c.x1 - 1 && table.box.x2 <= c.x2 + 1),
      `a table across columns: ${JSON.stringify(table.box)}`,
    );
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing: {} } });
  const subject = markdownSubject(result.markdown);
  for (const before of [
    ["Fonts 2", "Sizes 1"],
    ["emphasis", "smallest"],
    ["Sizes 2", "Lists 1"],
  ] as [string, string][])
    assert.ok(factHolds({ before }, subject), `${before.join(" before ")}\n${result.markdown}`);
});

test("a table that fills the page keeps its columns: no justified margin runs beside its gaps", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([842, 595]);
  const items = [
    "Bolt",
    "Washer",
    "Hinge",
    "Bracket",
    "Spring",
    "Clamp",
    "Rivet",
    "Gasket",
    "Pulley",
    "Spacer",
  ];
  items.forEach((item, k) => {
    const top = 40 + 14 * k;
    drawLine(page, `${item} ${100 + k}`, 40, top, fonts.regular, 9);
    drawLine(
      page,
      `${k % 2 ? "zinc plated" : "stainless"} ${item.toLowerCase()}`,
      140,
      top,
      fonts.regular,
      9,
    );
    drawLine(page, `${(k + 1) * 12}`, 420, top, fonts.regular, 9);
    drawLine(page, `${(k + 1) * 3}.50`, 480, top, fonts.regular, 9);
  });
  const tables = await pageTables(await pdfBytes(pdf));
  assert.equal(tables.length, 1, JSON.stringify(tables.map((t) => t.box)));
  assert.equal(tables[0].numCols, 4);
});

test("public page: a Portuguese LaTeX cheat sheet's tables stay inside its three columns", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/pt-latex-cheatsheet-p1.pdf", import.meta.url));
  const tables = await pageTables(new Uint8Array(bytes));
  // The gutters run down the page at about x 283–293 and 548–558.
  for (const table of tables)
    assert.ok(
      [283, 548].every((gutter) => table.box.x2 <= gutter + 10 || table.box.x1 >= gutter),
      `a table across a gutter: ${JSON.stringify(table.box)}`,
    );
  const { result } = await parseDocument({
    bytes: new Uint8Array(bytes),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const subject = markdownSubject(result.markdown);
  assert.ok(
    factHolds({ before: ["onde chapter tem profundidade 0.", "Ambientes de texto"] }, subject),
    result.markdown,
  );
});
