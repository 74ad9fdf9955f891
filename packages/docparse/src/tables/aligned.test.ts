import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { TextRun } from "../paginated/geometry.ts";
import { pageGeometry } from "../paginated/test-geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { detectAlignedTables } from "./aligned.ts";
import { CHAR, grid, run } from "./test-geometry.ts";

const page = (runs: TextRun[], width = 612) => pageGeometry({ width, runs });

const WORDS = (
  "the geometry of a page tells much about its structure when read with care and patience so that blocks " +
  "columns and tables appear from the positions of words alone without any model trained on examples which " +
  "keeps the parser small fast and predictable across documents of every kind and origin in the corpus"
).split(" ");

/**
 * Justified prose: words laid out in lines `width` points wide from x, the spare space spread between the words,
 * one run per word (as pdf.js gives justified text) or one run per line.
 */
function prose(x: number, y: number, width: number, lines: number, seed: number, perWord = true): TextRun[] {
  const runs: TextRun[] = [];
  let w = seed;
  for (let l = 0; l < lines; l++) {
    const words: string[] = [];
    let used = 0;
    while (true) {
      const word = WORDS[w % WORDS.length];
      const add = (word.length + (words.length > 0 ? 1 : 0)) * CHAR * 10;
      if (used + add > width) break;
      words.push(word);
      used += add;
      w++;
    }
    const top = y + 13 * l;
    if (!perWord) {
      runs.push({ ...run(words.join(" "), x, top), box: { x1: x, y1: top, x2: x + width, y2: top + 12 } });
      continue;
    }
    const letters = words.reduce((n, word) => n + word.length, 0) * CHAR * 10;
    const gap = (width - letters) / (words.length - 1);
    let cursor = x;
    for (const word of words) {
      runs.push(run(word, cursor, top));
      cursor += word.length * CHAR * 10 + gap;
    }
  }
  return runs;
}

const NUMERIC_TABLE = [
  ["Region", "2021", "2022", "Change"],
  ["North", "1,204", "1,310", "8.8%"],
  ["South", "982", "1,005", "2.3%"],
  ["East", "1,530", "1,498", "-2.1%"],
  ["West", "644", "702", "9.0%"],
  ["Central", "2,210", "2,356", "6.6%"],
];

function numericTable(x: number, y: number): TextRun[] {
  const columns = [x, x + 90, x + 150, x + 210];
  return NUMERIC_TABLE.flatMap((row, r) => row.map((text, c) => run(text, columns[c], y + 14 * r)));
}

test("a numeric table without rules: rows, columns and a header", () => {
  const runs = [
    ...prose(72, 100, 400, 4, 0),
    run("Table 1. Sales by region.", 72, 170),
    ...numericTable(100, 190),
    ...prose(72, 290, 400, 3, 7),
  ];
  const tables = detectAlignedTables(page(runs));
  assert.equal(tables.length, 1);
  const [table] = tables;
  assert.equal(table.method, "aligned");
  assert.deepEqual(grid(table), NUMERIC_TABLE);
  assert.ok(table.cells.filter((c) => c.row === 0).every((c) => c.columnHeader));
  assert.ok(table.cells.filter((c) => c.row > 0).every((c) => !c.columnHeader));
  assert.ok(table.box.y1 >= 190 && table.box.y2 <= 190 + 14 * 6);
});

test("a table whose rows are single runs with spaces between the cells", () => {
  const rows = [
    "alpha      12      3.5",
    "beta       40      1.25",
    "gamma      7       0.5",
    "delta      19      2.0",
  ];
  const runs = rows.map((text, r) => run(text, 100, 100 + 14 * r));
  const [table] = detectAlignedTables(page(runs));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["alpha", "12", "3.5"],
    ["beta", "40", "1.25"],
    ["gamma", "7", "0.5"],
    ["delta", "19", "2.0"],
  ]);
});

test("two columns of justified prose are no table", () => {
  const perWord = [...prose(50, 80, 240, 40, 0), ...prose(322, 80, 240, 40, 11)];
  assert.deepEqual(detectAlignedTables(page(perWord)), []);
  const perLine = [...prose(50, 80, 240, 40, 3, false), ...prose(322, 86, 240, 40, 5, false)];
  assert.deepEqual(detectAlignedTables(page(perLine)), []);
});

test("one column of prose, and lists with markers, are no tables", () => {
  assert.deepEqual(detectAlignedTables(page(prose(72, 80, 460, 30, 2))), []);
  const bullets = ["First point of the list", "Second point, a little longer", "Third", "Fourth point here"];
  const bulleted = bullets.flatMap((text, k) => [run("•", 80, 100 + 14 * k), run(text, 96, 100 + 14 * k)]);
  assert.deepEqual(detectAlignedTables(page(bulleted)), []);
  const numbered = bullets.flatMap((text, k) => [
    run(`${k + 1}.`, 80, 100 + 14 * k),
    run(text, 100, 100 + 14 * k),
  ]);
  assert.deepEqual(detectAlignedTables(page(numbered)), []);
  // Labels and words in two columns, without numbers: not enough to call it a table.
  const pairs = [
    ["Author", "Jane Roe"],
    ["Publisher", "Example Press"],
    ["Language", "English"],
  ];
  const labelled = pairs.flatMap(([k, value], r) => [
    run(k, 80, 100 + 14 * r),
    run(value, 200, 100 + 14 * r),
  ]);
  assert.deepEqual(detectAlignedTables(page(labelled)), []);
  // The same rows of numbers set in a fixed-width font are a code listing.
  const listing = NUMERIC_TABLE.flatMap((row, r) =>
    row.map((text, c) => run(text, 100 + 60 * c, 400 + 12 * r, { fontName: "CourierNewPSMT" })),
  );
  assert.deepEqual(detectAlignedTables(page(listing)), []);
});

test("a table in one column of a two-column page leaves the prose of the other column out", () => {
  const runs = [...prose(50, 80, 240, 40, 0), ...prose(322, 86, 240, 40, 9)].filter(
    (r) => !(r.box.x2 < 300 && r.box.y1 >= 300 && r.box.y1 < 400),
  );
  runs.push(
    ...NUMERIC_TABLE.flatMap((row, r) =>
      row.map((text, c) => run(text, [52, 120, 170, 225][c], 310 + 14 * r)),
    ),
  );
  const tables = detectAlignedTables(page(runs));
  assert.equal(tables.length, 1);
  assert.deepEqual(grid(tables[0]), NUMERIC_TABLE);
  assert.ok(tables[0].box.x2 < 300);
});

test("excluded areas are left out", () => {
  const runs = numericTable(100, 190);
  assert.equal(detectAlignedTables(page(runs)).length, 1);
  const exclude = [{ x1: 90, y1: 180, x2: 400, y2: 300 }];
  assert.deepEqual(detectAlignedTables(page(runs), undefined, { exclude }), []);
  // Lines from the layout stage, split at the cell gaps, read as whole rows.
  const lines = NUMERIC_TABLE.map((_, r) => runs.filter((run) => Math.abs(run.box.y1 - (190 + 14 * r)) < 1));
  const split = lines.flatMap((line) => line.map((cell) => [cell]));
  assert.deepEqual(grid(detectAlignedTables(page(runs), split)[0]), NUMERIC_TABLE);
});

/** A PDF of Docling's test data in the shared corpus; only called by tests that skip without it. */
const pdf = (name: string) =>
  new Uint8Array(readFileSync(corpusPath("docling/tests/data/pdf/sources", name)));

test("table_mislabeled_as_picture: the check-box table of the right-hand page of a spread", {
  skip: NO_CORPUS,
}, async () => {
  const doc = await openPdf(pdf("table_mislabeled_as_picture.pdf"));
  try {
    const tables = detectAlignedTables(await extractPdfPage(doc, 1));
    assert.equal(tables.length, 1);
    const [table] = tables;
    // Reference: 8 rows × 4 columns, the header "State funded legal aid" | "CSOs" over the check boxes.
    assert.deepEqual([table.numRows, table.numCols], [8, 4]);
    assert.deepEqual(grid(table)[0], ["", "", "State funded legal aid", "CSOs"]);
    assert.deepEqual(grid(table)[1].slice(1), ["Persons with disabilities", "*", "*"]);
    assert.equal(grid(table)[7][1], "Internally displaced persons");
    assert.ok(table.box.x1 > 612, "on the right-hand page");
  } finally {
    await doc.destroy();
  }
});

test("2305.03393v1-pg9 without its rules: the table's columns from alignment alone", {
  skip: NO_CORPUS,
}, async () => {
  const doc = await openPdf(pdf("2305.03393v1-pg9.pdf"));
  try {
    const geometry = { ...(await extractPdfPage(doc, 1)), rules: [], rects: [] };
    const tables = detectAlignedTables(geometry);
    assert.equal(tables.length, 1);
    assert.equal(tables[0].numCols, 8);
    const rows = grid(tables[0]).map((row) => row.join("|"));
    assert.ok(rows.includes("||OTSL|0.965|0.934|0.955|0.88|2.73"), rows.join("\n"));
  } finally {
    await doc.destroy();
  }
});

test("pages of prose, lists, code and figures give no aligned table", { skip: NO_CORPUS }, async () => {
  for (const name of [
    "amt_handbook_sample.pdf",
    "redp5110_sampled.pdf",
    "code_and_formula.pdf",
    "multi_page.pdf",
  ]) {
    const doc = await openPdf(pdf(name));
    try {
      for (let n = 1; n <= doc.numPages; n++) {
        const geometry = await extractPdfPage(doc, n);
        assert.deepEqual(detectAlignedTables({ ...geometry, rules: [], rects: [] }), [], `${name} page ${n}`);
      }
    } finally {
      await doc.destroy();
    }
  }
});

/** A statement's rows: a label of several words at x = 72, its figure right-aligned at x = 530, from y on. */
function statementRows(rows: readonly (readonly [string, string])[], y: number): TextRun[] {
  return rows.flatMap(([label, figure], r) => [
    run(label, 72, y + 14 * r),
    run(figure, 530 - figure.length * CHAR * 10, y + 14 * r),
  ]);
}

test("key figures in groups set apart by blank lines and labels are one table of label and figure", () => {
  const group = [
    ["Net Asset Value at 31 December", "5,111,372"],
    ["Number of outstanding units at 31 December", "49,136"],
    ["Net Asset Value per unit", "104.03"],
  ] as const;
  const runs = [
    run("Class A", 72, 100),
    ...statementRows(group, 122),
    run("Class B", 72, 184),
    ...statementRows(group, 206),
    run("Total for the Fund", 72, 268),
    ...statementRows(group, 290),
  ];
  const tables = detectAlignedTables(page(runs));
  assert.equal(tables.length, 1);
  const rows = grid(tables[0]);
  assert.deepEqual(rows[0], ["Net Asset Value at 31 December", "5,111,372"]);
  assert.deepEqual(rows.at(-1), ["Net Asset Value per unit", "104.03"]);
  assert.ok(rows.some((row) => row[0] === "Class B"));
});

test("two columns of prose with paragraph breaks stay no table", () => {
  const runs = [
    ...prose(72, 100, 220, 4, 0),
    ...prose(320, 100, 220, 4, 7),
    ...prose(72, 170, 220, 4, 13),
    ...prose(320, 170, 220, 4, 21),
  ];
  assert.deepEqual(detectAlignedTables(page(runs)), []);
});
