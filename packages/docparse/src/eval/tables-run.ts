/**
 * `npm run eval:tables [-- --file name] [--show]`: parses each PDF of the public table suites (table-suites.ts)
 * and prints the cell accuracy per file, per suite (cells matched over cells expected) and overall. `--show`
 * prints the detected grids of the files chosen, to see what went wrong.
 */
import { parseArgs } from "node:util";
import type { CellScore } from "./table-cells.ts";
import { scoreCase, tableCases } from "./table-suites.ts";

const { values } = parseArgs({
  options: { file: { type: "string" }, show: { type: "boolean", default: false } },
});
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
