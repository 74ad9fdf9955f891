import assert from "node:assert/strict";
import { test } from "node:test";
import { scoreCase, suiteScore, tableCases } from "../eval/table-suites.ts";

/**
 * tabula-java's test PDFs with their expected CSVs (kept in the repository under test/tables/tabula, MIT): each
 * table rule measured on pages made by others, and the suite's cell accuracy held above the target.
 */

const byName = (name: string) => {
  const found = tableCases().find((c) => c.suite === "tabula" && c.name === name);
  assert.ok(found, `no tabula case ${name}`);
  return found;
};

test("indictb1h_14: columns ruled in the header only divide the body; label-only lines are rows", async () => {
  const { tables, expected, matched } = await scoreCase(byName("indictb1h_14"));
  const rows = tables.flat();
  assert.ok(rows.some((row) => row.slice(0, 6).join("|") === "2.6|3.2|3.0|4.2|5.8|1.9"));
  // A section label alone on its line stays a row of its own at the label column (right, in Hebrew).
  assert.ok(rows.some((row) => row.at(-1) === "צריכה" && row.slice(0, -1).every((cell) => cell === "")));
  assert.ok(matched / expected >= 0.85, `${matched}/${expected}`);
});

test("us-020: header cells 0.7 em apart are two columns where the numbers below align to their edge", async () => {
  const { tables, expected, matched } = await scoreCase(byName("us-020"));
  const header = tables.flat().find((row) => row[0] === "Education system");
  assert.ok(header);
  assert.deepEqual(header.slice(1, 4), ["coverage", "exclusion rate", "before substitution"]);
  assert.equal(matched, expected);
});

test("the tabula-java suite: cell accuracy at least 0.90 over its whole-table cases", async () => {
  const { expected, matched } = await suiteScore("tabula");
  assert.ok(expected > 1500, `only ${expected} expected cells: test data missing`);
  assert.ok(matched / expected >= 0.9, `${matched}/${expected}`);
});
