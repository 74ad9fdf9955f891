import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { assertPdfFacts, type Fact, factHolds, markdownRows } from "../eval/facts.ts";
import { engineMarkdown, plainWords, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { HELVETICA, onePagePdf } from "../pdf/test-pdf.ts";
import { blockText } from "./blocks.ts";
import { marginLineNumbers } from "./gutter-numbers.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";
import { LEFT_COLUMN, pageGeometry, parallelPageRuns, RIGHT_COLUMN, textRun } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

/** Helvetica's advance widths (thousandths of an em) of the characters the made pages use. */
const WIDTHS: Record<string, number> = {
  " ": 278,
  a: 556,
  b: 556,
  c: 500,
  d: 556,
  e: 556,
  f: 278,
  g: 556,
  h: 556,
  i: 222,
  k: 500,
  l: 222,
  m: 833,
  n: 556,
  o: 556,
  p: 556,
  r: 333,
  s: 500,
  t: 278,
  u: 556,
  v: 500,
  w: 722,
  y: 500,
  ".": 278,
  ",": 278,
};

function width(text: string, size: number): number {
  return ([...text].reduce((sum, ch) => sum + (WIDTHS[ch] ?? 556), 0) * size) / 1000;
}

/** A line of Helvetica justified (word spacing) to run from x to x + measure, as a typeset column's lines do. */
function justified(text: string, x: number, baseline: number, measure: number, size = 10): string {
  const spaces = text.split(" ").length - 1;
  const spacing = spaces > 0 ? (measure - width(text, size)) / spaces : 0;
  return `BT /F1 ${size} Tf ${spacing.toFixed(3)} Tw ${x} ${baseline} Td (${text}) Tj ET`;
}

/** Two justified columns 14 pt apart, line numbers every second line standing in the gutter between them. */
function gutterNumberedPage(numbers: "gutter" | "none"): Uint8Array {
  const parts: string[] = [];
  LEFT_COLUMN.forEach((line, i) => {
    parts.push(justified(line, 72, 700 - 12 * i, 220));
  });
  RIGHT_COLUMN.forEach((line, i) => {
    parts.push(justified(line, 306, 700 - 12 * i, 220));
  });
  if (numbers === "gutter")
    for (let i = 1; i < LEFT_COLUMN.length; i += 2) {
      const label = String((i + 1) * 5);
      parts.push(`BT /F1 6 Tf 0 Tw ${294.5} ${700 - 12 * i} Td (${label}) Tj ET`);
    }
  return onePagePdf(parts.join("\n"));
}

async function pageText(bytes: Uint8Array): Promise<string> {
  const doc = await openPdf(bytes);
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), STAGES);
    return layout.entries
      .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
      .join(" ")
      .replace(/\s+/g, " ");
  } finally {
    await doc.destroy();
  }
}

test("line numbers in a narrow gutter do not close it: each column is read whole, its sentences intact", async () => {
  const text = await pageText(gutterNumberedPage("gutter"));
  assert.ok(
    text.indexOf("its very last line here at the bottom.") < text.indexOf("the right column tells"),
    text,
  );
  assert.ok(text.includes("moving, such as hamsters or mice, by a spectator"), text);
  assert.ok(text.includes("a sentence about the first part of the description which runs on"), text);
  // Nothing is lost: the numbers are read after the columns.
  for (const label of ["10", "20", "30", "40"]) assert.match(text, new RegExp(`\\b${label}\\b`), text);
});

test("the same columns without numbers read the same way (the rule only takes the numbers out of the gutter)", async () => {
  const text = await pageText(gutterNumberedPage("none"));
  assert.ok(
    text.indexOf("its very last line here at the bottom.") < text.indexOf("the right column tells"),
    text,
  );
});

test("a transcript's line numbers at the page's margin, level with its running prose, are read after it", async () => {
  // Set ragged right, as a transcript is (typewriter lines, not justified).
  const parts = LEFT_COLUMN.map((line, i) => `BT /F1 10 Tf 0 Tw 100 ${700 - 12 * i} Td (${line}) Tj ET`);
  for (let i = 0; i < LEFT_COLUMN.length; i++)
    parts.push(`BT /F1 10 Tf 0 Tw 72 ${700 - 12 * i} Td (${i + 1}) Tj ET`);
  const text = await pageText(onePagePdf(parts.join("\n")));
  assert.ok(text.includes(LEFT_COLUMN.join(" ")), text);
  // Nothing is lost: the numbers are read after the text.
  assert.match(text, /its very last line here at the bottom\. 1 2 3 4 5 6 7 8$/, text);
});

test("row numbers at the page's margin, level with rows that do not run on, stay at the start of their rows", async () => {
  const rows = [
    "Alpha Centauri.",
    "Barnard's Star.",
    "Wolf 359.",
    "Lalande 21185.",
    "Sirius.",
    "Luyten 726-8.",
    "Ross 154.",
    "Ross 248.",
  ];
  const parts = rows.map((row, i) => `BT /F1 10 Tf 0 Tw 100 ${700 - 12 * i} Td (${row}) Tj ET`);
  for (let i = 0; i < rows.length; i++)
    parts.push(`BT /F1 10 Tf 0 Tw 72 ${700 - 12 * i} Td (${i + 1}) Tj ET`);
  const text = await pageText(onePagePdf(parts.join("\n")));
  assert.match(text, /^1 Alpha Centauri\. 2 Barnard's Star\./, text);
});

test("numbers inside the lines of a code listing are words of their lines, not a gutter strip", async () => {
  // `pxc 1 create` with its number drawn apart in a font of its own (as a monospace export does, one
  // run for each), indented lines under each.
  const courier = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>";
  const parts: string[] = [];
  let y = 700;
  for (const n of [1, 2, 3]) {
    parts.push(`BT /F1 8 Tf 151.2 ${y} Td (pxc) Tj ET`, `BT /F2 8 Tf 170.4 ${y} Td (${n}) Tj ET`);
    parts.push(`BT /F1 8 Tf 180 ${y} Td (create) Tj ET`);
    for (const line of ["port 1/x1/1/c1/1", "shutdown", "exit"]) {
      y -= 10;
      parts.push(`BT /F1 8 Tf 170.4 ${y} Td (${line}) Tj ET`);
    }
    y -= 10;
  }
  const text = await pageText(onePagePdf(parts.join("\n"), { fonts: [courier, HELVETICA] }));
  for (const n of [1, 2, 3]) assert.match(text, new RegExp(`pxc ${n} create`), text);
});

test("a manual page's code listing keeps its numbered lines whole", { timeout: 600_000 }, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "nokia-interface-guide-p93.pdf"));
  for (const n of [1, 2, 3]) assert.match(markdown, new RegExp(`pxc ${n} create`), markdown);
});

test("a patent page: its gutter line numbers no longer mix the two columns", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "patent-pet-display-p3.pdf"), [
    "page_header",
    "page_footer",
    "page_number",
  ]);
  const subject = { words: ` ${plainWords(markdown).join(" ")} `, rows: markdownRows(markdown) };
  const facts: Fact[] = [
    { present: "crawl path for rodent-like pets 5, such as hamsters or mice" },
    { before: ["home for a pet", "DESCRIPTION OF PARTICULAR EMBODIMENTS"] },
    { before: ["PET DISPLAY CLOTHING", "FIELD OF THE INVENTION"] },
  ];
  for (const fact of facts) assert.ok(factHolds(fact, subject), `${JSON.stringify(fact)} in:\n${markdown}`);
});

/** Pleading paper: a ruler of line numbers 1 to 12 down the left margin at 24 pt, the text beside it at 27 pt. */
function pleadingPage(): Uint8Array {
  const parts = LEFT_COLUMN.map((line, i) => justified(line, 110, 700 - 27 * i, width(line, 12), 12));
  for (let n = 1; n <= 12; n++) {
    const label = String(n);
    parts.push(`BT /F1 12 Tf 0 Tw ${86 - width(label, 12)} ${706 - 24 * (n - 1)} Td (${label}) Tj ET`);
  }
  return onePagePdf(parts.join("\n"));
}

test("a margin's ruler of line numbers off the text's lines stays out of the sentences", async () => {
  const text = await pageText(pleadingPage());
  assert.ok(text.includes(LEFT_COLUMN.join(" ")), text);
  // Nothing is lost: the numbers are read after the text.
  assert.match(text, /its very last line here at the bottom\. 1 2 3 4 5 6 7 8 9 10 11 12$/, text);
});

test("an order on pleading paper: its sentences run on across the margin's line numbers", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("cacd-injunction-order-p2.pdf", [
    {
      present:
        "the Court issued a Temporary Restraining Order (“TRO”) and Order to Show Cause Re Preliminary Injunction that was set to expire on July 25, 2016",
    },
    {
      before: [
        "THUS, IT IS HEREBY ORDERED THAT:",
        "Defendant Leon, his agents, servants, employees, and attorneys",
      ],
    },
  ]);
});

/**
 * A journal's review copy: every line numbered 1 to 17 down the left margin in 6 pt on its line's baseline, the
 * steps wider where a display breaks a paragraph and where a heading stands between two (uneven: no grid of
 * their own, as pleading paper's ruler is).
 */
function reviewCopyPage(): Uint8Array {
  const parts: string[] = [];
  let baseline = 700;
  let n = 1;
  // Ragged right: word spaces that line up down a few justified lines could pass for a gutter.
  const line = (text: string) => {
    parts.push(justified(text, 90, baseline, width(text, 10)));
    const label = String(n++);
    parts.push(`BT /F1 6 Tf 0 Tw ${72 - width(label, 6)} ${baseline} Td (${label}) Tj ET`);
    baseline -= 12;
  };
  LEFT_COLUMN.forEach((text, i) => {
    line(text);
    if (i === 3) baseline -= 24;
  });
  baseline -= 14;
  line("Results");
  baseline -= 8;
  RIGHT_COLUMN.forEach((text, i) => {
    line(text);
    if (i === 3) baseline -= 24;
  });
  return onePagePdf(parts.join("\n"));
}

test("a review copy's line numbers, level with their lines but stepping unevenly, stay out of the sentences", async () => {
  const text = await pageText(reviewCopyPage());
  assert.ok(text.includes(LEFT_COLUMN.join(" ")), text);
  assert.ok(text.includes(RIGHT_COLUMN.join(" ")), text);
  // Nothing is lost: the numbers are read after the text.
  assert.match(text, /1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17$/, text);
});

test("a journal sample's first page: its sentences run on across the margin's line numbers", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("aastex-sample-p1.pdf", [
    { present: "authors to use when writing their own AAS Journal articles" },
    {
      present:
        "Substantial revisions were made by Lee Brotzman and Pierre Landau when the package was updated to v4.0",
    },
  ]);
});

test("a parallel edition's right-hand line numbers, 1R to 4R at the right margin, are a ruler", () => {
  const runs = parallelPageRuns(LEFT_COLUMN, true);
  const found = marginLineNumbers(runs, 10);
  assert.deepEqual(
    runs.filter((run) => run.text.endsWith("R") && found.has(run)).map((run) => run.text),
    ["1R", "2R", "3R", "4R"],
  );
  // Without their side letter, four numbers are too few for a ruler.
  const plain = runs.map((run) => (run.text.endsWith("R") ? { ...run, text: run.text.slice(0, -1) } : run));
  assert.ok(!plain.some((run) => run.box.x1 === 532 && marginLineNumbers(plain, 10).has(run)));
});

/** Lines of a narrow measure, each ending on a word broken by a hyphen or a sentence's end. */
const HYPHENATED = [
  "the left column opens with a sen-",
  "tence about the first part of the de-",
  "scription which runs on down the col-",
  "umn below and keeps going over sev-",
  "eral lines of plain text set in nar-",
  "row measure with nothing special.",
  "Its words run on until the column fi-",
  "nally reaches its very last line.",
];

test("line numbers level with lines whose words break across them (a hyphen) are taken out", () => {
  const runs = HYPHENATED.flatMap((text, i) => [
    textRun(text, { x1: 90, y1: 100 + 12 * i, x2: 300, y2: 110 + 12 * i }),
    textRun(String(i + 1), { x1: 80, y1: 102 + 12 * i, x2: 83.5, y2: 109 + 12 * i }, { fontSize: 7 }),
  ]);
  const found = marginLineNumbers(runs, 10);
  assert.equal(found.size, HYPHENATED.length);
  const layout = layoutPage(pageGeometry({ runs }), STAGES);
  const text = layout.entries
    .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ");
  assert.match(text, /opens with a sentence about the first part of the description/, text);
});

test("a parallel edition's line numbers in both margins stay out of its columns", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("reledpar-ru-he-parallel.pdf", [
    { before: ["Трактат Второй", "О краеугольных [принципах] Торы"] },
    {
      present:
        "О краеугольных [принципах] Торы, имеется ввиду, которые [есть] основы и столпы на которых дом Б-жий опирается/нахон",
    },
  ]);
});

test("a parallel edition's two rulers read each as its own sequence, not interleaved by height", () => {
  const runs = parallelPageRuns(LEFT_COLUMN, true);
  const layout = layoutPage(pageGeometry({ runs }), STAGES);
  const text = layout.entries
    .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ");
  const left = Array.from({ length: LEFT_COLUMN.length }, (_, i) => String(i + 1)).join(" ");
  assert.ok(text.includes(`${left} 1R 2R 3R 4R`), text);
});

test("public: the parallel edition's rulers read 1 to 10, then 1R to 5R", { timeout: 600_000 }, async () => {
  await assertPdfFacts("reledpar-ru-he-parallel.pdf", [{ present: "8 9 10 1R 2R 3R 4R 5R" }]);
});
