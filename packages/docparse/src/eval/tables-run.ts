/**
 * `npm run eval:tables [-- --file name] [--show]`: parses each PDF of the public table suites (table-suites.ts)
 * and prints the cell accuracy per file, per suite (cells matched over cells expected) and overall. `--show`
 * prints the detected grids of the files chosen, to see what went wrong.
 *
 * `npm run eval:tables -- --slides [--show]`: instead, the slide tables of slide-tables.ts, as written there and
 * as LibreOffice Impress saves them back, each scored by TEDS against its truth.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { renderSlideTables, SLIDE_TABLES, scoreSlideTables, truthHtml } from "./slide-tables.ts";
import type { CellScore } from "./table-cells.ts";
import { scoreCase, tableCases } from "./table-suites.ts";

const { values } = parseArgs({
  options: {
    file: { type: "string" },
    show: { type: "boolean", default: false },
    slides: { type: "boolean", default: false },
  },
});
if (values.slides) {
  await printSlideTables(values.show);
  process.exit(0);
}
const chosen = tableCases().filter((c) => values.file === undefined || c.name.includes(values.file));
const totals = new Map<string, CellScore>();
const widths = [6, 48, 6, 10, 8];
const print = (cells: string[]) =>
  console.log(
    cells.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i] ?? 0))).join("  "),
  );
const ratio = (score: CellScore) => (score.matched / Math.max(1, score.expected)).toFixed(3);
print(["suite", "file", "tables", "cells", "accuracy", ""]);
for (const c of chosen) {
  let score: CellScore = { expected: 0, matched: 0 };
  let tables = 0;
  let error = "";
  try {
    const scored = await scoreCase(c);
    score = scored;
    tables = scored.tables.length;
    if (values.show) {
      for (const grid of scored.tables) console.log(`${grid.map((row) => row.join(" | ")).join("\n")}\n`);
    }
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  const total = totals.get(c.suite) ?? { expected: 0, matched: 0 };
  totals.set(c.suite, { expected: total.expected + score.expected, matched: total.matched + score.matched });
  print([
    c.suite,
    c.name.slice(0, 48),
    String(tables),
    `${score.matched}/${score.expected}`,
    ratio(score),
    error,
  ]);
}
console.log();
const all: CellScore = { expected: 0, matched: 0 };
for (const [suite, score] of totals) {
  print([suite, "(cells matched / expected)", "", `${score.matched}/${score.expected}`, ratio(score)]);
  all.expected += score.expected;
  all.matched += score.matched;
}
print(["all", "", "", `${all.matched}/${all.expected}`, ratio(all)]);

/** TEDS, TEDS-structure and TEDS with headers read as plain cells, per slide table and mean, per deck. */
async function printSlideTables(show: boolean): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "slide-tables-"));
  try {
    const decks = renderSlideTables(dir, true);
    const row = (cells: string[]) =>
      console.log(cells.map((cell, i) => (i < 2 ? cell.padEnd(i ? 28 : 12) : cell.padStart(8))).join("  "));
    row(["deck", "table", "TEDS", "TEDS-s", "cells"]);
    for (const [deck, bytes] of Object.entries(decks)) {
      if (!bytes) continue;
      const scores = await scoreSlideTables(bytes);
      scores.forEach((score, i) => {
        row([deck, score.name, score.teds.toFixed(3), score.structure.toFixed(3), score.cells.toFixed(3)]);
        if (show && score.teds < 1)
          console.log(`  expected ${truthHtml(SLIDE_TABLES[i])}\n  parsed   ${score.html}`);
      });
      const mean = (pick: (s: (typeof scores)[number]) => number) =>
        (scores.reduce((sum, s) => sum + pick(s), 0) / scores.length).toFixed(3);
      row([
        deck,
        `mean of ${scores.length}`,
        mean((s) => s.teds),
        mean((s) => s.structure),
        mean((s) => s.cells),
      ]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
