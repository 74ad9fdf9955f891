import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import type { PageFragment, ParsingOptions } from "@svc/contract";
import { degrees, type PDFPage, rgb } from "pdf-lib";
import sharp from "sharp";
import { DocumentLoadError, type ParseViews, parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import { wordRecall } from "../ocr/test-support.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import {
  chartPng,
  drawGrid,
  drawGridText,
  drawLine,
  drawParagraph,
  newPdf,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  pdfBytes,
  qrCodePng,
  textImage,
} from "./pdf-fixtures.ts";

/** Parses PDF bytes through the engine's one entry point. */
async function parsePdf(
  bytes: Uint8Array,
  parsing: Partial<ParsingOptions> = {},
  pageRange?: string,
): Promise<ParseViews> {
  const { result } = await parseDocument({
    bytes,
    mimeType: "application/pdf",
    options: { parsing, pageRange },
  });
  return result;
}

function fragments(result: ParseViews): (PageFragment & { page: number })[] {
  return result.pages.flatMap((page) =>
    (page.page_fragments ?? []).map((fragment) => ({ ...fragment, page: page.page_number })),
  );
}

const ofType = (result: ParseViews, type: string) =>
  fragments(result).filter((f) => f.fragment_type === type);

function overlaps(a: Box, b: Box): boolean {
  return Math.min(a.x2, b.x2) > Math.max(a.x1, b.x1) && Math.min(a.y2, b.y2) > Math.max(a.y1, b.y1);
}

function inside(inner: Box, outer: Box, margin = 0): boolean {
  return (
    inner.x1 >= outer.x1 - margin &&
    inner.y1 >= outer.y1 - margin &&
    inner.x2 <= outer.x2 + margin &&
    inner.y2 <= outer.y2 + margin
  );
}

const PAGE_BOX: Box = { x1: 0, y1: 0, x2: PAGE_WIDTH, y2: PAGE_HEIGHT };

// ---------------------------------------------------------------------------------------------------------------
// A three-page report: running header, footer with page numbers, a title, headings, paragraphs and a list.

const HEADER = "Northern Valley Library Network";
const FOOTER = "Confidential draft";
const TITLE = "Annual Report on Regional Libraries";

interface Section {
  heading: string;
  paragraph?: string;
  list?: string[];
}

const REPORT: Section[][] = [
  [
    {
      heading: "Introduction",
      paragraph:
        "The regional library network serves eleven towns and forty villages across the northern valley. Its branches lend books, music and films, and they host reading groups for children and adults every week of the year.",
    },
    {
      heading: "Key Findings",
      list: [
        "Visits rose by nine percent in the spring.",
        "Two branches moved into the town halls.",
        "Volunteers scanned the old parish maps.",
      ],
    },
  ],
  [
    {
      heading: "Methods",
      paragraph:
        "Surveyors counted visitors at every branch during four sample weeks, noting the hour, the purpose of the visit and the services used. Librarians kept a diary of the questions asked at the desk.",
    },
    {
      heading: "Budget",
      paragraph:
        "Spending on printed books fell for the third year in a row, while the cost of digital subscriptions rose by almost twelve percent. Members asked whether smaller branches could share one catalogue and one delivery van.",
    },
  ],
  [
    {
      heading: "Conclusion",
      paragraph:
        "The board will decide on longer opening hours on Saturday and on a mobile service for villages without a branch of their own at its meeting in the autumn.",
    },
  ],
];

async function reportPdf(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  for (const [index, sections] of REPORT.entries()) {
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawLine(page, HEADER, 72, 36, fonts.regular, 9);
    drawLine(page, FOOTER, 72, 750, fonts.regular, 9);
    drawLine(page, `Page ${index + 1} of ${REPORT.length}`, 480, 750, fonts.regular, 9);
    let top = 90;
    if (index === 0) {
      drawLine(page, TITLE, 72, top, fonts.bold, 24);
      top += 50;
    }
    for (const section of sections) {
      drawLine(page, section.heading, 72, top, fonts.bold, 14);
      top += 28;
      if (section.paragraph) {
        const { lines, next } = drawParagraph(page, section.paragraph, {
          x: 72,
          top,
          width: 468,
          font: fonts.regular,
          size: 11,
        });
        assert.ok(lines.length >= 2, "the paragraph wraps");
        top = next + 6;
      }
      for (const item of section.list ?? []) {
        drawLine(page, `\u2022  ${item}`, 84, top, fonts.regular, 11);
        top += 16;
      }
    }
  }
  return pdfBytes(pdf);
}

const furnitureTypes = ["page_header", "page_footer", "page_number"];

describe("pdf backend: text layout", () => {
  test("a report: title and headings as # lines, a list, joined paragraphs, furniture out of markdown and chunks", async () => {
    const result = await parsePdf(await reportPdf());
    assert.equal(result.total_pages, 3);
    assert.equal(result.parsed_pages_count, 3);
    assert.deepEqual(result.warnings, []);
    const lines = result.markdown.split("\n");
    assert.equal(lines[0], `# ${TITLE}`);
    for (const heading of ["Introduction", "Key Findings", "Methods", "Budget", "Conclusion"]) {
      assert.ok(
        lines.some((line) => /^#{1,6} /.test(line) && line.replace(/^#+ /, "") === heading),
        `heading ${heading}`,
      );
    }
    for (const item of REPORT[0][1].list ?? []) assert.ok(lines.includes(`- ${item}`), `list item ${item}`);
    // Each paragraph is one line of markdown, its wrapped lines joined by spaces.
    for (const section of REPORT.flat()) {
      if (section.paragraph) assert.ok(lines.includes(section.paragraph), section.paragraph.slice(0, 30));
    }
    // Reading order: sections in the order drawn.
    const at = (text: string) => result.markdown.indexOf(text);
    assert.ok(at(TITLE) < at("Introduction") && at("Introduction") < at("Key Findings"));
    assert.ok(
      at("Key Findings") < at("Methods") && at("Methods") < at("Budget") && at("Budget") < at("Conclusion"),
    );

    // Furniture is in the pages view, on every page, and nowhere else.
    for (const page of result.pages) {
      const onPage = page.page_fragments ?? [];
      const types = onPage.map((f) => f.fragment_type);
      const text = (type: string) =>
        onPage.filter((f) => f.fragment_type === type).map((f) => f.content.content);
      assert.deepEqual(text("page_header"), [HEADER], `page ${page.page_number}: ${types}`);
      assert.deepEqual(text("page_footer"), [FOOTER], `page ${page.page_number}: ${types}`);
      assert.deepEqual(
        text("page_number"),
        [`Page ${page.page_number} of 3`],
        `page ${page.page_number}: ${types}`,
      );
    }
    assert.equal(ofType(result, "title").length, 1);
    assert.equal(ofType(result, "list_item").length, 3);
    for (const out of [result.markdown, ...result.chunks.map((c) => c.content)]) {
      assert.ok(!out.includes(HEADER), "no running header");
      assert.ok(!out.includes(FOOTER), "no footer");
      assert.ok(!/Page \d of 3/.test(out), "no page numbers");
    }
    // Fragments carry boxes inside their page, numbered in reading order.
    for (const page of result.pages) {
      assert.ok(page.page_fragments?.length, `page ${page.page_number} has fragments`);
      page.page_fragments.forEach((fragment, index) => {
        assert.equal(fragment.reading_order, index);
        assert.ok(fragment.bbox && inside(fragment.bbox, PAGE_BOX), JSON.stringify(fragment.bbox));
      });
      assert.deepEqual(page.page_dimensions, { width: PAGE_WIDTH, height: PAGE_HEIGHT });
    }
  });

  test("disable_layout_detection: only text fragments, no headings, lists or furniture", async () => {
    const result = await parsePdf(await reportPdf(), { disable_layout_detection: true });
    const types = new Set(fragments(result).map((f) => f.fragment_type));
    assert.deepEqual([...types], ["text"]);
    assert.ok(!/^#/m.test(result.markdown), "no heading lines");
    assert.ok(result.markdown.includes("Key Findings"));
  });

  test("page_range: only the pages asked for are read; a page beyond the document is INVALID_PAGE_RANGE", async () => {
    const bytes = await reportPdf();
    const result = await parsePdf(bytes, {}, "2");
    assert.equal(result.total_pages, 3);
    assert.equal(result.parsed_pages_count, 1);
    assert.deepEqual(
      result.pages.map((p) => p.page_number),
      [2],
    );
    assert.ok(result.markdown.includes("Methods") && result.markdown.includes("Budget"));
    assert.ok(!result.markdown.includes("Introduction") && !result.markdown.includes("Conclusion"));
    assert.ok(!result.markdown.includes(TITLE));
    assert.ok(result.chunks.every((chunk) => chunk.page_number === 2));
    assert.equal(result.usage.pages_parsed, 1);

    await assert.rejects(parsePdf(bytes, {}, "7"), (error: unknown) => {
      assert.ok(error instanceof DocumentLoadError);
      assert.equal(error.code, "INVALID_PAGE_RANGE");
      return true;
    });
  });

  test("a one-page letter: its short opening line is body text, not a page header", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawLine(page, "Dear Ms. Smith,", 72, 100, fonts.regular, 11);
    const paragraph = { x: 72, width: 468, font: fonts.regular, size: 11 };
    drawParagraph(
      page,
      "Thank you for your letter of the fourth of May. We have looked into the delayed delivery and found that the parcel was sent to the wrong branch. It will reach you by Friday.",
      { ...paragraph, top: 128 },
    );
    drawParagraph(page, "We apologise for the trouble and have refunded the delivery charge.", {
      ...paragraph,
      top: 200,
    });
    drawLine(page, "Yours sincerely,", 72, 250, fonts.regular, 11);
    const result = await parsePdf(await pdfBytes(pdf));
    assert.deepEqual(
      fragments(result).filter((f) => furnitureTypes.includes(f.fragment_type)),
      [],
    );
    assert.ok(result.markdown.startsWith("Dear Ms. Smith,"), result.markdown);
  });

  test("a page shown sideways (/Rotate 90 over upright content): its lines are read in order, the paragraph joined", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawLine(page, "Sideways Page Heading", 72, 72, fonts.bold, 18);
    const paragraph =
      "This page is stored with a rotation of ninety degrees, so a viewer shows its lines running down the page.";
    drawParagraph(page, paragraph, { x: 72, top: 110, width: 468, font: fonts.regular, size: 11 });
    page.setRotation(degrees(90));
    const result = await parsePdf(await pdfBytes(pdf));
    // The page is read in the frame its text is upright in; boxes and dimensions are given in that frame.
    assert.deepEqual(result.pages[0].page_dimensions, { width: PAGE_WIDTH, height: PAGE_HEIGHT });
    assert.equal(result.markdown, `# Sideways Page Heading\n\n${paragraph}`);
  });

  test("two columns: the whole left column is read before the right one", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const left = [
      "Alder trees line the eastern bank of the river, where the water runs slowly over gravel and sand. Anglers come early in the morning to fish for trout beneath the low branches.",
      "Autumn floods sometimes cover the footpath, and the council has placed stepping stones across the wettest meadow so that walkers can still reach the old mill.",
    ];
    const right = [
      "Beech woods cover the western hills, and their floor is bare except for a few ferns. Badgers dig their setts among the roots on the steeper slopes.",
      "Bird watchers record woodpeckers, nuthatches and owls every spring, and a small hide near the clearing lets visitors watch without disturbing them.",
    ];
    const columnWidth = 220;
    for (const [x, paragraphs] of [
      [72, left],
      [72 + columnWidth + 28, right],
    ] as const) {
      let top = 90;
      for (const text of paragraphs) {
        top = drawParagraph(page, text, { x, top, width: columnWidth, font: fonts.regular, size: 11 }).next;
      }
    }
    const result = await parsePdf(await pdfBytes(pdf));
    const md = result.markdown;
    for (const text of [...left, ...right]) assert.ok(md.includes(text), `intact: ${text.slice(0, 30)}`);
    assert.ok(md.indexOf(left[1]) < md.indexOf(right[0]), md);
    assert.ok(md.indexOf(left[0]) < md.indexOf(left[1]) && md.indexOf(right[0]) < md.indexOf(right[1]));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Tables

const TABLE_ROWS = [
  ["Region", "Branches", "Visitors"],
  ["North", "12", "48,200"],
  ["South", "9", "35,750"],
  ["East", "7", "21,400"],
];
const TABLE_WIDTHS = [140, 100, 120];
const TABLE_BOX: Box = { x1: 72, y1: 200, x2: 72 + 360, y2: 200 + 4 * 22 };

async function ruledTablePdf(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawParagraph(
    page,
    "The table below lists the branches and the visitors counted in each region during the survey weeks.",
    { x: 72, top: 120, width: 468, font: fonts.regular, size: 11 },
  );
  const grid = { x: TABLE_BOX.x1, top: TABLE_BOX.y1, widths: TABLE_WIDTHS, rowHeight: 22 };
  drawGrid(page, { ...grid, rows: TABLE_ROWS.length });
  drawGridText(page, TABLE_ROWS, { ...grid, fonts, header: true });
  drawParagraph(page, "Visitor numbers were highest in the north, where two new branches opened.", {
    x: 72,
    top: 340,
    width: 468,
    font: fonts.regular,
    size: 11,
  });
  return pdfBytes(pdf);
}

/** One table over two pages: a header and `firstRows` rows at the bottom of page 1, the header and the rest on page 2. */
const CONTINUED_HEADER = ["Item", "Quantity", "Price"];
const continuedRow = (i: number) => [`Article ${i + 1}`, String((i * 7) % 23), `${10 + i}.50`];

async function continuedTablePdf(firstRows: number, secondRows: number): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const widths = [200, 120, 120];
  const rowHeight = 20;
  const first = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawLine(first, "Order Details", 72, 80, fonts.bold, 16);
  drawParagraph(
    first,
    "Every article delivered in the second quarter is listed below with its quantity and unit price.",
    { x: 72, top: 120, width: 468, font: fonts.regular, size: 11 },
  );
  const rows1 = [CONTINUED_HEADER, ...Array.from({ length: firstRows }, (_, i) => continuedRow(i))];
  const top1 = PAGE_HEIGHT - 40 - rows1.length * rowHeight;
  drawGrid(first, { x: 72, top: top1, widths, rows: rows1.length, rowHeight });
  drawGridText(first, rows1, { x: 72, top: top1, widths, rowHeight, fonts, header: true });
  const second = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const rows2 = [
    CONTINUED_HEADER,
    ...Array.from({ length: secondRows }, (_, i) => continuedRow(firstRows + i)),
  ];
  drawGrid(second, { x: 72, top: 60, widths, rows: rows2.length, rowHeight });
  drawGridText(second, rows2, { x: 72, top: 60, widths, rowHeight, fonts, header: true });
  drawParagraph(second, "Prices include delivery to every branch of the network.", {
    x: 72,
    top: 60 + rows2.length * rowHeight + 30,
    width: 468,
    font: fonts.regular,
    size: 11,
  });
  return pdfBytes(pdf);
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe("pdf backend: tables", () => {
  test("a ruled table: html with a th header row, cells with boxes, its text not repeated as paragraphs", async () => {
    const bytes = await ruledTablePdf();
    const result = await parsePdf(bytes);
    const tables = ofType(result, "table");
    assert.equal(tables.length, 1, JSON.stringify(fragments(result).map((f) => f.fragment_type)));
    const [table] = tables;
    assert.ok("cells" in table.content);
    const html = table.content.html ?? "";
    assert.equal(count(html, "<tr>"), 4, html);
    for (const header of TABLE_ROWS[0]) assert.ok(html.includes(`<th>${header}</th>`), html);
    for (const row of TABLE_ROWS.slice(1))
      for (const cell of row) assert.ok(html.includes(`<td>${cell}</td>`), html);
    assert.equal(table.content.content, html, "html is the default table_output_mode");
    assert.deepEqual(
      table.content.cells.map((c) => c.text),
      TABLE_ROWS.flat(),
    );
    assert.ok(table.bbox && inside(table.bbox, TABLE_BOX, 3) && inside(TABLE_BOX, table.bbox, 3));
    for (const cell of table.content.cells) {
      const b = cell.bounding_box;
      assert.ok(b.x2 > b.x1 && b.y2 > b.y1 && inside(b, TABLE_BOX, 3), `${cell.text}: ${JSON.stringify(b)}`);
    }
    // The cells' text is the table's only: no paragraph repeats it.
    for (const fragment of fragments(result).filter((f) => f.fragment_type !== "table")) {
      for (const cell of ["Branches", "48,200", "35,750", "Visitors"]) {
        assert.ok(!fragment.content.content.includes(cell), `${cell} in ${fragment.fragment_type}`);
      }
    }
    assert.ok(
      result.markdown.includes("The table below lists") && result.markdown.includes("Visitor numbers"),
    );
    assert.equal(count(result.markdown, "48,200"), 1);

    const asMarkdown = await parsePdf(bytes, { table_output_mode: "markdown" });
    const [gfm] = ofType(asMarkdown, "table");
    assert.ok("cells" in gfm.content);
    assert.deepEqual(gfm.content.content.split("\n"), [
      "| Region | Branches | Visitors |",
      "| --- | --- | --- |",
      "| North | 12 | 48,200 |",
      "| South | 9 | 35,750 |",
      "| East | 7 | 21,400 |",
    ]);
    assert.ok(asMarkdown.markdown.includes("| North | 12 | 48,200 |"));
  });

  test("table_merging: a table continued on the next page is one merged table, its header once", async () => {
    const firstRows = 12;
    const secondRows = 5;
    const bytes = await continuedTablePdf(firstRows, secondRows);
    const merged = await parsePdf(bytes, { table_merging: true });
    const parts = ofType(merged, "table");
    assert.deepEqual(
      parts.map((t) => t.page),
      [1, 2],
      "one table part on each page",
    );
    assert.equal(merged.merged_tables?.length, 1, JSON.stringify(merged.merged_tables));
    const [table] = merged.merged_tables ?? [];
    assert.equal(table.start_page, 1);
    assert.equal(table.end_page, 2);
    assert.equal(table.pages_merged, 2);
    const html = table.merged_table_html;
    assert.equal(count(html, "<th>Item</th>"), 1, html);
    assert.equal(count(html, "<tr>"), 1 + firstRows + secondRows, html);
    assert.ok(html.includes("<td>Article 1</td>"), "first part's rows");
    assert.ok(html.includes(`<td>Article ${firstRows}</td>`), "first part's last row");
    assert.ok(html.includes(`<td>Article ${firstRows + secondRows}</td>`), "second part's rows");
    assert.ok(html.indexOf(`Article ${firstRows}<`) < html.indexOf(`Article ${firstRows + 1}<`), "in order");

    const separate = await parsePdf(bytes);
    assert.equal(separate.merged_tables, undefined);
    assert.equal(ofType(separate, "table").length, 2);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Options that look at what is drawn: strikethrough, signatures, barcodes, images

const STRUCK = "Obsolete clause about the parking fees charged to visitors";

/** Minutes with one whole line struck through between two plain ones. */
async function struckPdf(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 12;
  drawLine(page, "Meeting Minutes", 72, 72, fonts.bold, 16);
  drawLine(
    page,
    "The committee approved the plan for the new reading room on the ground floor.",
    72,
    110,
    fonts.regular,
    size,
  );
  drawLine(page, STRUCK, 72, 128, fonts.regular, size);
  strikeThrough(page, 72, 128, fonts.regular.widthOfTextAtSize(STRUCK, size), size);
  drawLine(
    page,
    "Work begins in March and ends before the summer holidays of next year.",
    72,
    146,
    fonts.regular,
    size,
  );
  return pdfBytes(pdf);
}

/** A line through the middle of the lower-case letters of text drawn by drawLine at (x, top). */
function strikeThrough(page: PDFPage, x: number, top: number, width: number, size: number): void {
  // The baseline is 0.8 size below the top; the x-height about half a size above it.
  const y = PAGE_HEIGHT - (top + size * 0.8) + size * 0.27;
  page.drawLine({ start: { x: x - 1, y }, end: { x: x + width + 1, y }, thickness: 1, color: rgb(0, 0, 0) });
}

/**
 * Points sampled along cubic Bézier segments ([start, control, control, end], each [x, y]), to know where the
 * ink of a drawn path is (its control points lie outside it).
 */
function inkBox(segments: readonly (readonly [number, number])[][], origin: { x: number; top: number }): Box {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [p0, p1, p2, p3] of segments) {
    for (let i = 0; i <= 100; i++) {
      const t = i / 100;
      const at = (k: 0 | 1) =>
        (1 - t) ** 3 * p0[k] + 3 * (1 - t) ** 2 * t * p1[k] + 3 * (1 - t) * t ** 2 * p2[k] + t ** 3 * p3[k];
      xs.push(origin.x + at(0));
      ys.push(origin.top + at(1));
    }
  }
  return { x1: Math.min(...xs), y1: Math.min(...ys), x2: Math.max(...xs), y2: Math.max(...ys) };
}

/** A scribbled signature: three joined strokes and an underline stroke, in SVG user units (y down). */
const SCRIBBLE: [number, number][][] = [
  [
    [0, 28],
    [15, -10],
    [30, 40],
    [45, 12],
  ],
  [
    [45, 12],
    [55, -6],
    [70, 30],
    [85, 18],
  ],
  [
    [85, 18],
    [100, 6],
    [110, -8],
    [125, 24],
  ],
  [
    [125, 24],
    [135, 34],
    [150, 10],
    [170, 4],
  ],
  [
    [20, 20],
    [60, 14],
    [110, 16],
    [165, 12],
  ],
];

function scribblePath(segments: readonly (readonly [number, number])[][]): string {
  let path = "";
  let at: readonly [number, number] | null = null;
  for (const [p0, p1, p2, p3] of segments) {
    if (!at || at[0] !== p0[0] || at[1] !== p0[1]) path += `M ${p0[0]} ${p0[1]} `;
    path += `C ${p1[0]} ${p1[1]} ${p2[0]} ${p2[1]} ${p3[0]} ${p3[1]} `;
    at = p3;
  }
  return path.trim();
}

/** A lease's signature block: a paragraph, the label "Signature:", a signature line and a scribble on it. */
async function signedPdf(): Promise<{ bytes: Uint8Array; ink: Box }> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  drawParagraph(
    page,
    "By signing below the tenant accepts the terms of this agreement and confirms that the deposit has been paid.",
    { x: 72, top: 100, width: 468, font: fonts.regular, size: 11 },
  );
  drawLine(page, "Signature:", 72, 208, fonts.regular, 11);
  page.drawLine({
    start: { x: 150, y: PAGE_HEIGHT - 222 },
    end: { x: 360, y: PAGE_HEIGHT - 222 },
    thickness: 0.8,
    color: rgb(0, 0, 0),
  });
  const origin = { x: 160, top: 190 };
  page.drawSvgPath(scribblePath(SCRIBBLE), {
    x: origin.x,
    y: PAGE_HEIGHT - origin.top,
    borderColor: rgb(0.05, 0.05, 0.3),
    borderWidth: 1.4,
  });
  return { bytes: await pdfBytes(pdf), ink: inkBox(SCRIBBLE, origin) };
}

describe("pdf backend: drawn marks", () => {
  test("remove_strikethrough_lines: a struck line is dropped and the page counted; without it, it stays", async () => {
    const bytes = await struckPdf();
    const removed = await parsePdf(bytes, { remove_strikethrough_lines: true });
    assert.ok(!removed.markdown.includes("Obsolete"), removed.markdown);
    assert.ok(!removed.markdown.includes("parking"), removed.markdown);
    assert.ok(removed.markdown.includes("approved the plan"), removed.markdown);
    assert.ok(removed.markdown.includes("Work begins"), removed.markdown);
    assert.equal(removed.usage.strikethrough_removed_pages, 1);

    const kept = await parsePdf(bytes);
    assert.ok(kept.markdown.includes(STRUCK), kept.markdown);
    assert.equal(kept.usage.strikethrough_removed_pages, undefined);
  });

  test("remove_strikethrough_lines: one struck word inside a line goes, the rest of the line stays", {}, async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const size = 12;
    drawLine(page, "Meeting Minutes", 72, 72, fonts.bold, 16);
    const before = "The entrance fee is ";
    const word = "forty";
    const xWord = 72 + fonts.regular.widthOfTextAtSize(before, size);
    drawLine(page, before, 72, 110, fonts.regular, size);
    drawLine(page, word, xWord, 110, fonts.regular, size);
    drawLine(
      page,
      "fifty pence for every visitor over the age of sixteen.",
      xWord + fonts.regular.widthOfTextAtSize(`${word} `, size),
      110,
      fonts.regular,
      size,
    );
    strikeThrough(page, xWord, 110, fonts.regular.widthOfTextAtSize(word, size), size);
    const result = await parsePdf(await pdfBytes(pdf), { remove_strikethrough_lines: true });
    assert.ok(result.markdown.includes("The entrance fee is fifty pence"), result.markdown);
    assert.ok(!result.markdown.includes("forty"), result.markdown);
    assert.equal(result.usage.strikethrough_removed_pages, 1);
  });

  test("signature_detection: a scribble on a signature line is a signature fragment; without it, none", async () => {
    const { bytes, ink } = await signedPdf();
    const found = await parsePdf(bytes, { signature_detection: true });
    const signatures = ofType(found, "signature");
    assert.equal(
      signatures.length,
      1,
      JSON.stringify(fragments(found).map((f) => [f.fragment_type, f.bbox])),
    );
    const bbox = signatures[0].bbox;
    assert.ok(bbox, "a box");
    // Near the ink: overlapping it, its edges within a signature line's height of the ink's.
    assert.ok(
      overlaps(bbox, ink) && inside(bbox, ink, 30) && inside(ink, bbox, 2),
      `${JSON.stringify(bbox)} vs ink ${JSON.stringify(ink)}`,
    );
    assert.equal(found.usage.signature_detected_pages, 1);
    assert.ok(found.markdown.includes("Signature:"));
    assert.ok(found.markdown.includes("<!-- signature -->"));

    const none = await parsePdf(bytes);
    assert.deepEqual(ofType(none, "signature"), []);
    assert.equal(none.usage.signature_detected_pages, undefined);
  });

  test("signature_detection: the signature's box is the ink's extent", {}, async () => {
    const { bytes, ink } = await signedPdf();
    const [signature] = ofType(await parsePdf(bytes, { signature_detection: true }), "signature");
    // Ink plus half the stroke and rounding.
    assert.ok(
      signature?.bbox && inside(signature.bbox, ink, 2),
      `${JSON.stringify(signature?.bbox)} vs ink ${JSON.stringify(ink)}`,
    );
  });

  test("barcode_detection: a QR code image is a barcode fragment with its text; without it, none", async () => {
    const encoded = "https://example.com/invoices/2024-0042";
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawLine(page, "Invoice 2024-0042", 72, 80, fonts.bold, 16);
    drawParagraph(page, "Scan the code below to pay this invoice online or to download a copy of it.", {
      x: 72,
      top: 120,
      width: 468,
      font: fonts.regular,
      size: 11,
    });
    const qr = await pdf.embedPng(await qrCodePng(encoded));
    const placed: Box = { x1: 72, y1: 170, x2: 72 + 130, y2: 170 + 130 };
    page.drawImage(qr, { x: placed.x1, y: PAGE_HEIGHT - placed.y2, width: 130, height: 130 });
    const bytes = await pdfBytes(pdf);

    const found = await parsePdf(bytes, { barcode_detection: true });
    const codes = ofType(found, "barcode");
    assert.equal(codes.length, 1, JSON.stringify(fragments(found).map((f) => [f.fragment_type, f.content])));
    assert.equal(codes[0].content.content, encoded);
    assert.ok(codes[0].bbox && inside(codes[0].bbox, placed, 2), JSON.stringify(codes[0].bbox));

    const none = await parsePdf(bytes);
    assert.deepEqual(ofType(none, "barcode"), []);
  });

  test("barcode_detection: a QR code image is reported once, as a barcode, not also as an empty figure", {}, async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawLine(page, "Scan to pay", 72, 80, fonts.regular, 11);
    page.drawImage(await pdf.embedPng(await qrCodePng("PAY 42.00 EUR")), {
      x: 72,
      y: PAGE_HEIGHT - 250,
      width: 130,
      height: 130,
    });
    const result = await parsePdf(await pdfBytes(pdf), { barcode_detection: true });
    assert.equal(ofType(result, "barcode").length, 1);
    assert.deepEqual(ofType(result, "figure"), []);
    assert.ok(!result.markdown.includes("<!-- image -->"), result.markdown);
  });

  test("include_images: a figure carries its image as a data: URI; without it, no URI", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawParagraph(page, "Loans per quarter rose steadily through the year, as the chart below shows.", {
      x: 72,
      top: 100,
      width: 468,
      font: fonts.regular,
      size: 11,
    });
    const chart = await pdf.embedPng(await chartPng(200, 150));
    page.drawImage(chart, { x: 72, y: PAGE_HEIGHT - 140 - 150, width: 200, height: 150 });
    drawParagraph(page, "The last quarter had the most loans of any quarter on record.", {
      x: 72,
      top: 310,
      width: 468,
      font: fonts.regular,
      size: 11,
    });
    const bytes = await pdfBytes(pdf);

    const withImages = await parsePdf(bytes, { include_images: true });
    const figures = ofType(withImages, "figure");
    assert.equal(figures.length, 1, JSON.stringify(fragments(withImages).map((f) => f.fragment_type)));
    const content = figures[0].content.content;
    assert.ok(content.startsWith("!["), content.slice(0, 40));
    assert.ok(content.includes("(data:image/png;base64,"), content.slice(0, 60));
    assert.ok(figures[0].bbox && inside(figures[0].bbox, { x1: 72, y1: 140, x2: 272, y2: 290 }, 2));
    const png = Buffer.from(/base64,([A-Za-z0-9+/=]+)\)/.exec(content)?.[1] ?? "", "base64");
    const meta = await sharp(png).metadata();
    assert.equal(meta.format, "png");
    // Cropped at 150 dpi: 200 × 150 points is about 417 × 313 pixels.
    assert.ok(
      Math.abs((meta.width ?? 0) - 417) <= 4 && Math.abs((meta.height ?? 0) - 313) <= 4,
      `${meta.width}×${meta.height}`,
    );
    assert.ok(withImages.markdown.includes("data:image/png;base64,"));

    const without = await parsePdf(bytes);
    const [plain] = ofType(without, "figure");
    assert.ok(plain, "the figure is still found");
    assert.ok(!plain.content.content.includes("data:"), plain.content.content);
    assert.ok(!without.markdown.includes("data:image"));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Scans and bad input

describe("pdf backend: scans and bad input", () => {
  test("a scanned page without a text layer is read by OCR, with boxes inside the page", async () => {
    const lines = [
      "Quarterly inventory of the county archive",
      "Seven hundred boxes were moved to new shelves",
      "Every folder now carries a printed label",
    ];
    const scan = await textImage(lines, { fontPt: 14, dpi: 300, widthIn: 8.5, heightIn: 11 });
    const { pdf } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    page.drawImage(await pdf.embedPng(scan), { x: 0, y: 0, width: PAGE_WIDTH, height: PAGE_HEIGHT });
    const result = await parsePdf(await pdfBytes(pdf));
    const recall = wordRecall(lines.join(" "), result.markdown);
    assert.ok(recall >= 0.9, `recall ${recall}: ${result.markdown}`);
    const texts = fragments(result).filter((f) => f.fragment_type !== "figure");
    assert.ok(texts.length > 0);
    for (const fragment of texts) {
      assert.ok(fragment.bbox && inside(fragment.bbox, PAGE_BOX), JSON.stringify(fragment.bbox));
    }
    // The text starts an inch from the left and about three quarters of an inch from the top.
    const first = texts.find((f) => f.content.content.includes("Quarterly"));
    assert.ok(first?.bbox, JSON.stringify(texts));
    assert.ok(
      Math.abs(first.bbox.x1 - 72) < 6 && Math.abs(first.bbox.y1 - 58) < 10,
      JSON.stringify(first.bbox),
    );
  });

  test("random bytes are a DocumentLoadError", async () => {
    let seed = 42;
    const bytes = Uint8Array.from({ length: 4096 }, () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed >> 16;
    });
    await assert.rejects(parsePdf(bytes), (error: unknown) => {
      assert.ok(error instanceof DocumentLoadError, String(error));
      assert.equal(error.code, "INVALID_FILE");
      return true;
    });
  });

  test("a truncated PDF (its first half) is a DocumentLoadError", async () => {
    const whole = await reportPdf();
    const half = whole.slice(0, Math.floor(whole.length / 2));
    await assert.rejects(parsePdf(half), (error: unknown) => {
      assert.ok(error instanceof DocumentLoadError, String(error));
      assert.equal(error.code, "INVALID_FILE");
      return true;
    });
  });

  test("an encrypted PDF without its password is a DocumentLoadError saying so", {
    skip: NO_CORPUS,
  }, async () => {
    const bytes = readFileSync(corpusPath("docling/tests/data", "pdf_password/sources/2206.01062_pg3.pdf"));
    await assert.rejects(parsePdf(bytes), (error: unknown) => {
      assert.ok(error instanceof DocumentLoadError, String(error));
      assert.match(error.message, /password-protected/);
      return true;
    });
  });
});
