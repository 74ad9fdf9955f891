import assert from "node:assert/strict";
import { test } from "node:test";
import { scoreCase, suiteScore, tableCases } from "../eval/table-suites.ts";

/**
 * camelot's test PDFs with their expected tables (kept in the repository under test/tables/camelot, MIT): table
 * rules measured on pages made by others, and the suite's cell accuracy held at what it reaches.
 */

const byName = (name: string) => {
  const found = tableCases().find((c) => c.suite === "camelot" && c.name === name);
  assert.ok(found, `no camelot case ${name}`);
  return found;
};

test("health: striped rows whose shading is painted in pieces keep one row per state and one column per figure", async () => {
  const { tables, expected, matched } = await scoreCase(byName("health"));
  const rows = tables.flat();
  assert.ok(
    rows.some(
      (row) => row.join("|") === "Arunachal Pradesh|2,241,609|107,549|23,000|0|2,372,158|86,336|2,458,494",
    ),
    rows.map((row) => row.join(" | ")).join("\n"),
  );
  // The header's raised footnote mark reads after its word.
  assert.ok(rows.some((row) => row.includes("Others(1)")));
  // No empty row under each shaded one.
  const andhra = rows.findIndex((row) => row[0] === "Andhra Pradesh");
  assert.equal(rows[andhra + 1]?.[0], "Arunachal Pradesh");
  assert.ok(matched / expected >= 0.9, `${matched}/${expected}`);
});

test("background_lines_1: the shaded header's labels wrapped on up to four lines make one header row", async () => {
  const { tables, expected, matched } = await scoreCase(byName("background_lines_1"));
  const rows = tables.flat();
  assert.deepEqual(rows[0]?.slice(0, 5), [
    "State",
    "Date",
    "Halt stations",
    "Halt days",
    "Persons directly reached (in lakh)",
  ]);
  assert.equal(rows[1]?.[0], "Delhi");
  assert.equal(matched, expected);
});

test("edge_tol: key figures in groups under their labels are one table of label and figure", async () => {
  const { tables, expected, matched } = await scoreCase(byName("edge_tol"));
  const table = tables.find((rows) =>
    rows.some((row) => row.join("|") === "Net Asset Value at 31 December|5,111,372"),
  );
  assert.ok(table, tables.map((rows) => rows.map((row) => row.join(" | ")).join("\n")).join("\n\n"));
  assert.ok(table.some((row) => row.join("|") === "Total investment result per unit|3.78"));
  assert.ok(matched / expected >= 0.8, `${matched}/${expected}`);
});

test("anticlockwise_table_2: sub-headers set tightly under 'Traditional method' stay one per column", async () => {
  const { tables } = await scoreCase(byName("anticlockwise_table_2"));
  const rows = tables.flat();
  const sub = rows.find((row) => row.includes("Rhythm"));
  assert.ok(
    sub,
    rows
      .slice(0, 4)
      .map((row) => row.join(" | "))
      .join("\n"),
  );
  const at = sub.indexOf("Rhythm");
  assert.deepEqual(sub.slice(at, at + 3), ["Rhythm", "With- drawal", "Folk method"]);
  assert.ok(rows.some((row) => row.includes("Traditional method")));
});

test("the camelot suite: cell accuracy at least 0.92", async () => {
  const { expected, matched } = await suiteScore("camelot");
  assert.ok(expected > 2000, `only ${expected} expected cells: test data missing`);
  assert.ok(matched / expected >= 0.92, `${matched}/${expected}`);
});
