import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import type { TableItem } from "../model.ts";
import { detectDelimiter, splitRecords } from "./csv.ts";

test("RFC 4180 quoting: delimiters, line breaks and doubled quotes inside quoted fields", () => {
  assert.deepEqual(splitRecords('a,"b,c","say ""hi""\nthere"\r\n1,2,3', ","), [
    ["a", "b,c", 'say "hi"\nthere'],
    ["1", "2", "3"],
  ]);
});

test("the delimiter is the one that splits lines consistently", () => {
  assert.equal(detectDelimiter("a;b;c\n1;2,5;3\n4;5;6"), ";");
  assert.equal(detectDelimiter("a\tb\n1\t2"), "\t");
  assert.equal(detectDelimiter("a|b|c\n1|2|3"), "|");
  assert.equal(detectDelimiter("name, age\nAnn, 3"), ",");
  assert.equal(detectDelimiter("just one column\nof text"), ",");
});

test("one table, first row as header; UTF-16 and Windows-1252 bytes decoded", async () => {
  const bytes = new Uint8Array([0xff, 0xfe, ...Buffer.from("h1;h2\nü;2\n", "utf16le")]);
  const { document, result } = await parseDocument({ bytes, mimeType: "text/csv" });
  const table = document.items[0] as TableItem;
  assert.equal(table.numRows, 2);
  assert.equal(table.numCols, 2);
  assert.ok(table.cells.filter((cell) => cell.row === 0).every((cell) => cell.columnHeader));
  assert.match(result.markdown, /<td>ü<\/td>/);
  const latin = await parseDocument({
    bytes: new Uint8Array([0x61, 0x2c, 0x62, 0x0a, 0xe9, 0x2c, 0x31]),
    mimeType: "text/csv",
  });
  assert.match(latin.result.markdown, /é/);
  assert.equal(latin.result.warnings.length, 1);
  const tsv = await parseDocument({ text: "a,b\tc\n1,2\t3", mimeType: "text/tab-separated-values" });
  assert.equal((tsv.document.items[0] as TableItem).cells[0].text, "a,b");
});
