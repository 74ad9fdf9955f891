import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  drawLine,
  drawParagraph,
  newPdf,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  pdfBytes,
} from "../backends/pdf-fixtures.ts";
import { markdownRows } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import type { PageGeometry, TextRun } from "../paginated/geometry.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { detectKeyValueTables } from "./key-value.ts";
import { grid, run } from "./test-geometry.ts";

/**
 * Bold labels each beside the first line of its value, values at one left edge and wrapping below (an infobox, a
 * data sheet): a table of two columns. Bold run-in terms at the start of paragraphs, or fewer than four labels,
 * are not.
 */

function page(runs: TextRun[]): PageGeometry {
  return {
    pageNumber: 1,
    width: 612,
    height: 792,
    runs,
    rules: [],
    rects: [],
    images: [],
    textSource: "text-layer",
    warnings: [],
  };
}

const bold = { bold: true, fontName: "Helvetica-Bold" };

/** Labels at x 400, values at x 500, a value wrapping onto a second line where `wrap` says. */
function infobox(entries: readonly (readonly [string, string, string?])[]): TextRun[] {
  const runs: TextRun[] = [];
  let y = 100;
  for (const [label, value, more] of entries) {
    runs.push(run(label, 400, y, bold), run(value, 500, y));
    if (more) {
      y += 14;
      runs.push(run(more, 500, y));
    }
    y += 20;
  }
  return runs;
}

const ENTRIES = [
  ["Original author", "Andreas Gal"],
  ["Developer", "Mozilla"],
  ["Initial release", "2 July 2011"],
  ["Stable release", "4.0.379 /", "December 31, 2023"],
  ["Written in", "JavaScript,", "CSS, HTML"],
  ["License", "Apache License 2.0"],
] as const;

test("bold labels beside their values, values wrapping below, make a table of two columns", () => {
  const tables = detectKeyValueTables(page(infobox(ENTRIES)));
  assert.equal(tables.length, 1);
  assert.deepEqual(grid(tables[0]), [
    ["Original author", "Andreas Gal"],
    ["Developer", "Mozilla"],
    ["Initial release", "2 July 2011"],
    ["Stable release", "4.0.379 / December 31, 2023"],
    ["Written in", "JavaScript, CSS, HTML"],
    ["License", "Apache License 2.0"],
  ]);
});

test("three labels, or labels whose values start wherever the label ends, make no table", () => {
  assert.deepEqual(detectKeyValueTables(page(infobox(ENTRIES.slice(0, 3)))), []);
  // Run-in bold terms: each paragraph goes on right after its term, at no common edge.
  const runIn = ["Plan", "Build it", "Launch day", "Learn more"].flatMap((term, i) => [
    run(term, 72, 100 + i * 30, bold),
    run("goes on with the paragraph's text", 72 + term.length * 5 + 4, 100 + i * 30),
  ]);
  assert.deepEqual(detectKeyValueTables(page(runIn)), []);
  // A caption in the labels' column between two labels ends the list: three labels above it, two below.
  const broken = ["Owner", "Builder", "Launched", "Tonnage", "Length"].flatMap((label, i) => [
    run(label, 400, 100 + i * 30, bold),
    run("a value", 500, 100 + i * 30),
  ]);
  broken.push(run("A caption set across the box", 400, 173));
  assert.deepEqual(detectKeyValueTables(page(broken)), []);
  assert.equal(detectKeyValueTables(page(broken.slice(0, -1))).length, 1);
});

test("an infobox beside an article, drawn with pdf-lib: each label reads beside its value", async () => {
  const { pdf, fonts } = await newPdf();
  const p = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const article =
    "The ferry service links the harbour with the island four times a day in summer and twice a day in winter, " +
    "and its timetable is printed in the box beside this article along with the names of its boats.";
  drawParagraph(p, article, { x: 54, top: 90, width: 300, font: fonts.regular, size: 11 });
  let top = 90;
  for (const [label, value, more] of ENTRIES) {
    drawLine(p, label, 380, top, fonts.bold, 9);
    drawLine(p, value, 470, top, fonts.regular, 9);
    if (more) {
      top += 12;
      drawLine(p, more, 470, top, fonts.regular, 9);
    }
    top += 18;
  }
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const rows = markdownRows(result.markdown);
  assert.ok(
    rows.some((row) => row[0] === "developer" && row[1] === "mozilla"),
    result.markdown,
  );
  assert.ok(
    rows.some((row) => row[0] === "stable release" && row[1] === "4 0 379 december 31 2023"),
    result.markdown,
  );
  assert.ok(result.markdown.includes("printed in the box beside this article"), result.markdown);
});

test("labels ended by colons beside values make a table from three rows, in any weight", () => {
  const contacts = (n: number) =>
    [
      ["www:", "example.org"],
      ["e-mail:", "office@example.org"],
      ["irc:", "#club @ irc.example.net"],
    ]
      .slice(0, n)
      .flatMap(([label, value], i) => [run(label, 40, 100 + 16 * i), run(value, 80, 100 + 16 * i)]);
  const [table, ...more] = detectKeyValueTables(page(contacts(3)));
  assert.equal(more.length, 0);
  assert.deepEqual(grid(table), [
    ["www:", "example.org"],
    ["e-mail:", "office@example.org"],
    ["irc:", "#club @ irc.example.net"],
  ]);
  assert.deepEqual(detectKeyValueTables(page(contacts(2))), []);
});

test("a bold label's value set bold is still its value when it is an amount", () => {
  const entries = [
    ["Customer", "Bayside Wholesale", false],
    ["Invoice Number", "INV-0046", false],
    ["Amount Due", "273.13", true],
    ["Due Date", "Jun 3, 2013", false],
  ] as const;
  const runs = entries.flatMap(([label, value, strong], i) => [
    run(label, 340, 100 + 18 * i, bold),
    run(value, 430, 100 + 18 * i, strong ? bold : {}),
  ]);
  const [table] = detectKeyValueTables(page(runs));
  assert.ok(table);
  assert.deepEqual(grid(table)[2], ["Amount Due", "273.13"]);
  // A bold word beside a bold label is a second label, not its value.
  runs[5] = run("Overdue", 430, 136, bold);
  assert.deepEqual(detectKeyValueTables(page(runs)), []);
});

test("public pages: a form's contact foot and a payment advice read each label beside its value", async () => {
  for (const [name, label, value] of [
    ["de-ccc-membership-form.pdf", "IBAN:", "AT92 2040 4000 4096 8679"],
    ["demo-invoice-payment-advice.pdf", "Amount Due", "273.13"],
  ]) {
    const doc = await openPdf(
      new Uint8Array(readFileSync(new URL(`../../test/real-world/${name}`, import.meta.url))),
    );
    try {
      const rows = tableStage(await extractPdfPage(doc, 1)).flatMap(grid);
      assert.ok(
        rows.some((row) => row.join("|") === `${label}|${value}`),
        `${name}: ${JSON.stringify(rows)}`,
      );
    } finally {
      await doc.destroy();
    }
  }
});

test("labels and values set solid (a pitch of 1.0 to 1.2 em), values wrapping, keep every value line", async () => {
  // A line's box is taller than the pitch of rows set solid: it reaches into the next row's, and a value's
  // last line must still be its own row's.
  for (const pitch of [1.0, 1.1, 1.2]) {
    const { pdf, fonts } = await newPdf();
    const p = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const size = 9;
    let top = 90;
    for (const [label, value, more] of ENTRIES) {
      drawLine(p, label, 380, top, fonts.bold, size);
      drawLine(p, value, 470, top, fonts.regular, size);
      if (more) {
        top += size * pitch;
        drawLine(p, more, 470, top, fonts.regular, size);
      }
      top += size * pitch;
    }
    const doc = await openPdf(await pdfBytes(pdf));
    try {
      const tables = detectKeyValueTables(await extractPdfPage(doc, 1));
      assert.equal(tables.length, 1, `pitch ${pitch}`);
      assert.deepEqual(grid(tables[0]), [
        ["Original author", "Andreas Gal"],
        ["Developer", "Mozilla"],
        ["Initial release", "2 July 2011"],
        ["Stable release", "4.0.379 / December 31, 2023"],
        ["Written in", "JavaScript, CSS, HTML"],
        ["License", "Apache License 2.0"],
      ]);
    } finally {
      await doc.destroy();
    }
  }
});

/** Runs of one word each, as OCR reads a line: `text` from (x, y), words a word space apart. */
function ocrWords(text: string, x: number, y: number, size = 9): TextRun[] {
  const runs: TextRun[] = [];
  let left = x;
  for (const word of text.split(" ")) {
    runs.push(run(word, left, y, { fontSize: size, fontName: "ocr" }));
    left += word.length * 0.5 * size + 0.3 * size;
  }
  return runs;
}

/** An infobox read by OCR: labels at x 290, values at x 356, baselines a point or two apart, a value of seven lines. */
function ocrInfobox(): TextRun[] {
  const runs: TextRun[] = [];
  const entries: [string, string[], number][] = [
    ["Developer", ["various"], 0.4],
    ["Kernel", ["monolithic kernel"], -1.2],
    ["First release", ["17 September 1991"], 1.5],
    [
      "Platforms",
      [
        "Alpha, ARC, ARM, AVR32,",
        "C6x, CRIS, FR-V, H8/300,",
        "Hexagon, Itanium, M32R,",
        "MicroBlaze, MIPS, Nios II,",
        "OpenRISC, PA-RISC, s390,",
        "SuperH, SPARC, TILE64,",
        "x86, x86-64, Xtensa",
      ],
      -0.8,
    ],
    ["Licence", ["GPLv2 and others"], 1],
  ];
  let y = 300;
  for (const [label, lines, wobble] of entries) {
    runs.push(...ocrWords(label, 290, y + wobble, 8.5));
    lines.forEach((line, i) => {
      runs.push(...ocrWords(line, 356, y + 14 * i));
    });
    y += 14 * lines.length + 4;
  }
  return runs;
}

test("an infobox read by OCR (no weight known): labels pair with their wobbling values, a long value wraps", () => {
  // The article's lines beside the box on the left, read by OCR too.
  const article = Array.from({ length: 14 }, (_, i) =>
    ocrWords(i % 4 === 3 ? "and ends here." : "the text of the article runs on", 60, 296 + 14 * i, 10),
  ).flat();
  const ocrPage = { ...page([...article, ...ocrInfobox()]), textSource: "ocr" as const };
  const tables = detectKeyValueTables(ocrPage);
  assert.equal(tables.length, 1);
  assert.deepEqual(grid(tables[0]), [
    ["Developer", "various"],
    ["Kernel", "monolithic kernel"],
    ["First release", "17 September 1991"],
    [
      "Platforms",
      "Alpha, ARC, ARM, AVR32, C6x, CRIS, FR-V, H8/300, Hexagon, Itanium, M32R, MicroBlaze, MIPS, Nios II, " +
        "OpenRISC, PA-RISC, s390, SuperH, SPARC, TILE64, x86, x86-64, Xtensa",
    ],
    ["Licence", "GPLv2 and others"],
  ]);
  // The same words in a text layer, in one weight: no label is bold, no table.
  assert.deepEqual(detectKeyValueTables(page([...article, ...ocrInfobox()])), []);
});

test("a bold label's value wrapping over many lines keeps the labels below it in the table", () => {
  const runs = infobox(ENTRIES.slice(0, 3));
  // A value of ten lines, then one more label.
  for (let i = 0; i < 10; i++) runs.push(run(`platform list line ${i + 1}`, 500, 160 + 14 * i));
  runs.push(run("Platforms", 400, 160, bold), run("License", 400, 310, bold), run("Apache 2.0", 500, 310));
  const [table] = detectKeyValueTables(page(runs));
  assert.ok(table);
  assert.deepEqual(grid(table).at(-1), ["License", "Apache 2.0"]);
  assert.equal(grid(table).length, 5);
});

test("bullets set bold beside their items are a list's marks, not labels: no table", () => {
  const items = [
    "User-centered design",
    "Iterative development",
    "Unified infrastructure",
    "Open source software",
  ];
  const runs = infobox(items.map((item) => ["•", item] as const));
  assert.deepEqual(detectKeyValueTables(page(runs)), []);
});

test("public page: a booklet's list with coloured bullets is read as a list, not a table", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(`${REAL_WORLD_DIR}/derisking-guide-spreads-p6-12.pdf`);
  const cells = markdownRows(markdown).flat();
  assert.ok(!cells.includes("open source software"), markdown);
  assert.match(markdown, /Open source software/);
});
