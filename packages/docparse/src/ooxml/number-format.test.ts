import assert from "node:assert/strict";
import { test } from "node:test";
import { formatGeneral, formatNumber, formatText, isDateFormat } from "./number-format.ts";

test("number formats render as a spreadsheet shows them", () => {
  const cases: [number, string, string][] = [
    [45292, "m/d/yyyy", "1/1/2024"],
    [45292.5, "yyyy-mm-dd hh:mm:ss", "2024-01-01 12:00:00"],
    [45292, "d-mmm-yy", "1-Jan-24"],
    [45292, "mmmm d, yyyy", "January 1, 2024"],
    [0.5, "h:mm AM/PM", "12:00 PM"],
    [1.25, "[h]:mm:ss", "30:00:00"],
    [0.1234, "0.00%", "12.34%"],
    [1234567.891, "#,##0.00", "1,234,567.89"],
    [-1234.5, '"$"#,##0.00_);("$"#,##0.00)', "($1,234.50)"],
    [1234.5, "[$€-407]#,##0.00", "€1,234.50"],
    [-3, "0.0;[Red]-0.0", "-3.0"],
    [-3, "0.0", "-3.0"],
    [12345.678, "0.00E+00", "1.23E+04"],
    [1500000, '#,##0,"K"', "1,500K"],
    [1.5, "#,##0.##", "1.5"],
    [2, "0.0#", "2.0"],
    [7, "000", "007"],
  ];
  for (const [value, code, expected] of cases)
    assert.equal(formatNumber(value, code), expected, `${value} as ${code}`);
});

test("General shows integers whole and other numbers to 10 significant digits", () => {
  assert.equal(formatGeneral(42), "42");
  assert.equal(formatGeneral(0.1 + 0.2), "0.3");
  assert.equal(formatGeneral(1 / 3), "0.3333333333");
  assert.equal(formatGeneral(1.5e20), "1.5E+20");
});

test("the 1904 date system and text sections", () => {
  assert.equal(formatNumber(0, "yyyy-mm-dd", true), "1904-01-01");
  assert.equal(formatNumber(1, "yyyy-mm-dd"), "1900-01-01");
  assert.ok(isDateFormat("dd/mm/yyyy"));
  assert.ok(!isDateFormat('0.00 "days"'));
  assert.equal(formatText("abc", '@" units"'), "abc units");
});
