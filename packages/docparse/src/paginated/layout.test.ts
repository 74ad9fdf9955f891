import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { Box } from "../model.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { blockText } from "./blocks.ts";
import type { PageGeometry, TextRun } from "./geometry.ts";
import { type LayoutStages, layoutPage, type PageEntry } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

/** One run per word, as pdf.js gives justified text: half an em per character, a third of an em between words. */
function words(text: string, x: number, y: number, options: Partial<TextRun> = {}): TextRun[] {
  const size = options.fontSize ?? 10;
  const runs: TextRun[] = [];
  for (const word of text.split(" ")) {
    const width = word.length * size * 0.5;
    runs.push(
      textRun(word, { x1: x, y1: y, x2: x + width, y2: y + size }, { fontName: "Times-Roman", ...options }),
    );
    x += width + size * 0.3;
  }
  return runs;
}

/** Lines of words from (x, y) down on a 12 pt pitch. */
function paragraph(lines: string[], x: number, y: number, options: Partial<TextRun> = {}): TextRun[] {
  return lines.flatMap((line, i) => words(line, x, y + i * 12, options));
}

const page = (runs: TextRun[], images: Box[] = []) =>
  pageGeometry({ runs, images: images.map((b) => ({ box: b })) });

/** Each entry as a short string: a block's text, or `[figure]`. */
function describe(entries: readonly PageEntry[]): string[] {
  return entries.map((entry) => (entry.kind === "block" ? blockText(entry.block) : `[${entry.kind}]`));
}

const LEFT_LINES = [
  "The left column opens the body of the",
  "page and runs down its left half in",
  "lines of ten point type that are set",
  "close together so that they make one",
  "paragraph which ends at the bottom of",
  "the column on a short line.",
];
const RIGHT_LINES = [
  "The right column goes on below the",
  "figure and its caption with a second",
  "paragraph of the same size and the",
  "same leading as the first one.",
];

/** A two-column page: a title across the top, a paragraph on the left, a figure, its caption and text on the right. */
function twoColumnPage(): PageGeometry {
  return page(
    [
      ...words("A Study of Synthetic Pages", 175, 60, { fontSize: 20, fontName: "Times-Bold", bold: true }),
      ...paragraph(LEFT_LINES, 50, 120),
      // A label drawn on the figure stays text, read after the figure.
      ...words("axis", 430, 200),
      ...words("Figure 1. A synthetic figure.", 320, 290),
      ...paragraph(RIGHT_LINES, 320, 316),
    ],
    [{ x1: 320, y1: 120, x2: 560, y2: 280 }],
  );
}

test("a two-column page reads title, left column, then the right column's figure, caption and text", () => {
  const layout = layoutPage(twoColumnPage(), STAGES);
  assert.equal(layout.rtl, false);
  assert.deepEqual(describe(layout.entries), [
    "A Study of Synthetic Pages",
    LEFT_LINES.join(" "),
    "[figure]",
    "axis",
    "Figure 1. A synthetic figure.",
    RIGHT_LINES.join(" "),
  ]);
  const figure = layout.entries.find((entry) => entry.kind === "figure");
  assert.deepEqual(figure?.box, { x1: 320, y1: 120, x2: 560, y2: 280 });
});

test("runs arriving in any order give the same layout", () => {
  const ordered = twoColumnPage();
  const shuffled = { ...ordered, runs: [...ordered.runs].reverse() };
  assert.deepEqual(
    describe(layoutPage(shuffled, STAGES).entries),
    describe(layoutPage(ordered, STAGES).entries),
  );
});

test("a background image under the whole page, and a tiny one, are not figures", () => {
  const runs = paragraph(["A single paragraph on a page with", "a background and a small logo."], 50, 100);
  const layout = layoutPage(
    page(runs, [
      { x1: 0, y1: 0, x2: 612, y2: 792 },
      { x1: 500, y1: 30, x2: 515, y2: 45 },
    ]),
    STAGES,
  );
  assert.deepEqual(describe(layout.entries), [
    "A single paragraph on a page with a background and a small logo.",
  ]);
});

test("text inside a table's box is left to the table", () => {
  const runs = [
    ...paragraph(["Text above the table."], 50, 100),
    ...words("cell", 60, 150),
    ...words("cell", 160, 150),
  ];
  const table = {
    box: { x1: 50, y1: 140, x2: 300, y2: 170 },
    numRows: 1,
    numCols: 2,
    cells: [60, 160].map((x, col) => ({
      row: 0,
      col,
      rowSpan: 1,
      colSpan: 1,
      text: "cell",
      box: { x1: x, y1: 150, x2: x + 20, y2: 160 },
      columnHeader: false,
      rowHeader: false,
    })),
    method: "ruled" as const,
  };
  const layout = layoutPage(page(runs), { detectTables: () => [table], dropStruck: false });
  assert.deepEqual(describe(layout.entries), ["Text above the table.", "[table]"]);
});

test("struck runs are dropped when dropStruck is on, and kept when it is off", () => {
  const runs = words("keep this deleted text", 50, 100);
  runs[2].struck = true;
  assert.deepEqual(describe(layoutPage(page(runs), STAGES).entries), ["keep this deleted text"]);
  const dropped = describe(layoutPage(page(runs), { ...STAGES, dropStruck: true }).entries);
  assert.equal(dropped.join(" "), "keep this text");
});

test("dropping a struck word does not split its paragraph", {}, () => {
  const runs = paragraph(
    ["The first line of the paragraph", "keep this deleted text and the", "paragraph goes on to its end."],
    50,
    100,
  );
  const struck = runs.find((run) => run.text === "deleted");
  assert.ok(struck);
  struck.struck = true;
  assert.deepEqual(describe(layoutPage(page(runs), { ...STAGES, dropStruck: true }).entries), [
    "The first line of the paragraph keep this text and the paragraph goes on to its end.",
  ]);
});

test("a right-to-left page reads its right column first and its lines from the right", () => {
  const rtl = { dir: "rtl" as const };
  // Each line, as laid out on the page left to right, is its words in reverse.
  const right = [...words("ימין שורה ראשונה", 320, 100, rtl), ...words("ימין שורה שנייה", 320, 112, rtl)];
  const left = [...words("שמאל שורה ראשונה", 50, 100, rtl), ...words("שמאל שורה שנייה", 50, 112, rtl)];
  const layout = layoutPage(page([...left, ...right]), STAGES);
  assert.equal(layout.rtl, true);
  assert.deepEqual(describe(layout.entries), [
    "ראשונה שורה ימין שנייה שורה ימין",
    "ראשונה שורה שמאל שנייה שורה שמאל",
  ]);
});

test("a tag centered beside a two-line description comes before both its lines", () => {
  // Four phase tags (7 pt, 50..) each centered on the two 10 pt lines of their description (95..), as a legend of
  // coloured labels sets them: the tag shares under half its height with either line.
  const tags = ["DISCOVER", "DECIDE", "MAKE", "VALIDATE"];
  const runs = tags.flatMap((tag, i) => [
    ...words(tag, 50, 108 + 30 * i, { fontSize: 7 }),
    ...paragraph([`Learn what the ${tag.toLowerCase()} phase`, "asks of the team."], 95, 100 + 30 * i),
  ]);
  const text = describe(layoutPage(page(runs), STAGES).entries).join(" ");
  for (const tag of tags) assert.ok(text.includes(`${tag} Learn what the ${tag.toLowerCase()} phase`), text);
});

test("the method cards' cover reads each phase's tag before its description", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/method-cards-cover.pdf", import.meta.url));
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const text = describe(layoutPage(await extractPdfPage(doc, 1), STAGES).entries).join(" ");
    assert.match(text, /DISCOVER Learn as much as you can about the project and people involved/);
    assert.match(text, /DECIDE Use what you’ve learned to start focusing your research on specific areas/);
  } finally {
    await doc.destroy();
  }
});
