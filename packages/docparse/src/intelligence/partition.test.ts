import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDocument } from "../index.ts";
import { itemText } from "../model.ts";
import { compilePattern, partitionDocument } from "./partition.ts";

const markdown = [
  "# Report",
  "Intro paragraph.",
  "## Section A",
  "Alpha text.",
  "- item one",
  "## Section B",
  "Beta text.",
  "Invoice 1 starts here",
  "line of invoice 1",
  "End of invoice",
  "between invoices",
  "Invoice 2 starts here",
  "line of invoice 2",
].join("\n\n");

async function model(text: string, mimeType = "text/markdown") {
  return (await parseDocument({ text, mimeType })).document;
}

const texts = (items: { label: string }[]) => items.map((item) => itemText(item as never));

test("none keeps every item in one partition; page splits by page, an empty page too", async () => {
  const doc = await model("page one text\fpage two text\f\fpage four", "text/plain");
  const [all] = partitionDocument(doc, "none", null);
  assert.deepEqual(all.pageNumbers, [1, 2, 3, 4]);
  assert.equal(all.items.length, doc.items.length);
  const pages = partitionDocument(doc, "page", null);
  assert.deepEqual(
    pages.map((partition) => partition.pageNumbers),
    [[1], [2], [3], [4]],
  );
  assert.deepEqual(texts(pages[1].items), ["page two text"]);
  assert.deepEqual(pages[2].items, []);
  const some = partitionDocument(doc, "page", [2, 4]);
  assert.deepEqual(
    some.map((partition) => partition.pageNumbers),
    [[2], [4]],
  );
  assert.deepEqual(partitionDocument(doc, "none", [4])[0].pageNumbers, [4]);
});

test("section starts a partition at each heading; fragment gives one per item", async () => {
  const doc = await model(markdown);
  const sections = partitionDocument(doc, "section", null);
  assert.deepEqual(
    sections.map((partition) => texts(partition.items)[0]),
    ["Report", "Section A", "Section B"],
  );
  assert.deepEqual(texts(sections[1].items), ["Section A", "Alpha text.", "item one"]);
  const fragments = partitionDocument(doc, "fragment", null);
  assert.equal(fragments.length, doc.items.length);
  assert.ok(fragments.every((partition) => partition.items.length === 1 && partition.pageNumbers[0] === 1));
});

test("patterns split between start and end matches; items outside are left out", async () => {
  const doc = await model(markdown);
  const both = partitionDocument(
    doc,
    { patterns: { start_patterns: ["^Invoice \\d"], end_patterns: ["End of"] } },
    null,
  );
  assert.deepEqual(
    both.map((partition) => texts(partition.items)),
    [
      ["Invoice 1 starts here", "line of invoice 1", "End of invoice"],
      ["Invoice 2 starts here", "line of invoice 2"],
    ],
  );
  const startsOnly = partitionDocument(doc, { patterns: { start_patterns: ["starts here"] } }, null);
  assert.deepEqual(
    startsOnly.map((partition) => texts(partition.items)[0]),
    ["Invoice 1 starts here", "Invoice 2 starts here"],
  );
  assert.equal(startsOnly[0].items.length, 4);
  const endsOnly = partitionDocument(
    doc,
    { patterns: { start_patterns: null, end_patterns: ["end of invoice"] } },
    null,
  );
  assert.equal(endsOnly.length, 2);
  assert.equal(texts(endsOnly[0].items).at(-1), "End of invoice");
  assert.deepEqual(texts(endsOnly[1].items), [
    "between invoices",
    "Invoice 2 starts here",
    "line of invoice 2",
  ]);
  // A start pattern that matches nothing keeps the whole document as one partition.
  const missed = partitionDocument(doc, { patterns: { start_patterns: ["no such text"] } }, null);
  assert.equal(missed.length, 1);
  assert.equal(missed[0].items.length, doc.items.length);
});

test("patterns that could backtrack badly are matched as plain text, and quickly", () => {
  const evil = compilePattern("(a+)+$");
  const text = `${"a".repeat(5000)}!`;
  assert.equal(evil(text), false); // as a regex it would run for ages; as text it is absent
  assert.equal(evil("x (a+)+$ y"), true);
  assert.equal(compilePattern("(x|xx)*y")("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), false);
  assert.equal(compilePattern("(\\w)\\1")("aa"), false); // backreference: literal
  assert.equal(compilePattern("^Section \\d+")("section 12: scope"), true); // a safe regex, case-insensitive
  assert.equal(compilePattern("[unclosed")("an [unclosed bracket"), true); // does not compile: literal
  // Only an item's first 200 characters are matched.
  assert.equal(compilePattern("needle")(`${" ".repeat(300)}needle`), false);
});
