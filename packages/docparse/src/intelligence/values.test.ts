import assert from "node:assert/strict";
import { test } from "node:test";
import { matchEnum, parseBoolean, parseDate, parseNumber } from "./values.ts";

test("numbers: currency, thousands separators, decimal commas, negatives; anything else is not a number", () => {
  assert.equal(parseNumber("$1,234.56"), 1234.56);
  assert.equal(parseNumber("1.234,56 €"), 1234.56);
  assert.equal(parseNumber("EUR 1 234,5"), 1234.5);
  assert.equal(parseNumber("1,234,567"), 1234567);
  assert.equal(parseNumber("12,5"), 12.5);
  assert.equal(parseNumber("(45.00)"), -45);
  assert.equal(parseNumber("-3"), -3);
  assert.equal(parseNumber("12%"), 12);
  assert.equal(parseNumber("14 pcs"), 14);
  for (const text of [
    "",
    "abc",
    "12 apples and pears",
    "1.2.3",
    "INV-2024-001",
    "+1 555 123 4567",
    "2024-01-05",
  ]) {
    assert.equal(parseNumber(text), undefined, text);
  }
});

test("dates to ISO: written months, ISO, unambiguous and ambiguous numeric orders", () => {
  assert.equal(parseDate("March 5, 2024"), "2024-03-05");
  assert.equal(parseDate("5 March 2024"), "2024-03-05");
  assert.equal(parseDate("05-Mar-2024"), "2024-03-05");
  assert.equal(parseDate("Tuesday, March 5th, 2024"), "2024-03-05");
  assert.equal(parseDate("2024-03-05"), "2024-03-05");
  assert.equal(parseDate("25/06/1969"), "1969-06-25");
  assert.equal(parseDate("06/25/1969"), "1969-06-25");
  assert.equal(parseDate("03/04/2024"), "2024-03-04"); // ambiguous with slashes: month first
  assert.equal(parseDate("03.04.2024"), "2024-04-03"); // ambiguous with dots: day first
  for (const text of ["2024-02-30", "13/13/2024", "soon", "Q3 2021", "12"])
    assert.equal(parseDate(text), undefined, text);
});

test("booleans and enums", () => {
  assert.equal(parseBoolean("Yes"), true);
  assert.equal(parseBoolean("☑"), true);
  assert.equal(parseBoolean("[ ]"), false);
  assert.equal(parseBoolean("maybe"), undefined);
  assert.equal(matchEnum("Self-Employed", ["employed", "self-employed"]), "self-employed");
  assert.equal(matchEnum("Marred", ["single", "married"]), "married");
  assert.equal(matchEnum("paid in full", ["paid", "unpaid"]), "paid");
  assert.equal(matchEnum("purple", ["red", "green"]), undefined);
});
