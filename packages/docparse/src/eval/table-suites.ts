/**
 * The public table suites kept in `packages/docparse/test/tables/<suite>/`: each PDF beside the CSV of its
 * expected cells (tabula-java's test resources, MIT; see the LICENSE there), and their scoring.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { splitRecords } from "../backends/csv.ts";
import { loadDocument, type TableItem } from "../index.ts";
import { isRightToLeft, mirroredCells } from "../tables/direction.ts";
import { type CellScore, expectedTables, scoreCells, type TextGrid, tableGrid } from "./table-cells.ts";

const ROOT = join(import.meta.dirname, "../../test/tables");

/** One PDF with the CSVs of its expected tables, in a suite (the folder it sits in). */
export interface Case {
  suite: string;
  name: string;
  pdf: string;
  csvs: string[];
}

/**
 * Every PDF of the suites that has an expected CSV beside it, by suite and name: `name.csv`, and `name.2.csv`,
 * `name.3.csv`... for the further tables of `name.pdf`.
 */
export function tableCases(): Case[] {
  const found: Case[] = [];
  for (const suite of readdirSync(ROOT).sort()) {
    const dir = join(ROOT, suite);
    const names = readdirSync(dir).sort();
    for (const file of names) {
      if (!file.endsWith(".pdf")) continue;
      const name = file.slice(0, -4);
      const csvs = names.filter(
        (n) => n === `${name}.csv` || (n.startsWith(`${name}.`) && /^\.\d+\.csv$/.test(n.slice(name.length))),
      );
      if (csvs.length > 0)
        found.push({ suite, name, pdf: join(dir, file), csvs: csvs.map((n) => join(dir, n)) });
    }
  }
  return found;
}

/**
 * The tables of a PDF as the default parse finds them, as grids with their columns left to right on the page, as
 * the suites' CSVs list them: a right-to-left table, which the model reads from its rightmost column, is mirrored
 * back.
 */
export async function detectedGrids(pdf: string): Promise<TextGrid[]> {
  const doc = await loadDocument({ bytes: new Uint8Array(readFileSync(pdf)), mimeType: "application/pdf" });
  return doc.items
    .filter((item): item is TableItem => item.label === "table")
    .map((table) => tableGrid(isRightToLeft(table) ? { ...table, cells: mirroredCells(table) } : table));
}

/** A case's score: its expected cells found in place among the tables detected in its PDF. */
export async function scoreCase(c: Case): Promise<CellScore & { tables: TextGrid[] }> {
  const expected = c.csvs.flatMap((csv) => expectedTables(splitRecords(readFileSync(csv, "utf8"), ",")));
  const tables = await detectedGrids(c.pdf);
  return { ...scoreCells(expected, tables), tables };
}

/** A whole suite's score: its cases' expected cells and those found in place, summed. */
export async function suiteScore(suite: string): Promise<CellScore> {
  const total = { expected: 0, matched: 0 };
  for (const c of tableCases().filter((c) => c.suite === suite)) {
    const score = await scoreCase(c);
    total.expected += score.expected;
    total.matched += score.matched;
  }
  return total;
}
