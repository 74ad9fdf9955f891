import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseDocument } from "../index.ts";
import { type DocItem, DocumentLoadError } from "../model.ts";

const RST = `==========
Field Guide
==========

Birds
-----

Common *birds* with \`\`latin\`\` names and a \`reference <https://example.org/birds>\`_.

- sparrow
- robin

  - European robin

#. first step
#. second step

A sample::

    count = 3
    print(count)

.. code-block:: python

   def tally(n):
       return n + 1

+--------+-------+
| Bird   | Count |
+========+=======+
| Wren   | 4     |
+--------+-------+
| Finch  | 7     |
+--------+-------+

=====  ======
Tree   Height
=====  ======
Oak    20 m
Ash    25 m
=====  ======

Insects
-------

.. note::

   Bees are insects.

.. This is a comment and is dropped.
`;

const ORG = `#+TITLE: Garden Log
#+AUTHOR: Ada
* TODO Planting :spring:
Plant *tomatoes* and /basil/ with =compost=; see [[https://example.org/garden][the guide]].
- seeds
- tools
  - spade
1. dig
2. water
:PROPERTIES:
:ID: hidden-drawer-text
:END:
** Harvest
| Crop   | Kilos |
|--------+-------|
| Tomato | 12    |
| Basil  | 1     |
#+BEGIN_SRC python
print("harvest")
#+END_SRC
# a comment line that is dropped
`;

const labels = (items: DocItem[], label: string) => items.filter((item) => item.label === label);
const text = (item: DocItem) => ("text" in item ? item.text : "");

describe("reStructuredText and Org", () => {
  test("reStructuredText: titles by adornment, lists, literal and code blocks, grid and simple tables", async () => {
    const { document, result } = await parseDocument({
      bytes: new TextEncoder().encode(RST),
      mimeType: "text/x-rst",
    });
    assert.equal(document.backend, "rst");
    const headings = labels(document.items, "section_header").map((h) => [
      text(h),
      h.label === "section_header" ? h.level : 0,
    ]);
    // The document title is the title item; sections follow with their levels.
    assert.deepEqual(labels(document.items, "title").map(text), ["Field Guide"]);
    assert.deepEqual(headings, [
      ["Birds", 2],
      ["Insects", 2],
    ]);
    const items = labels(document.items, "list_item").map((item) => [
      text(item),
      item.label === "list_item" ? item.depth : -1,
    ]);
    assert.deepEqual(items, [
      ["sparrow", 0],
      ["robin", 0],
      ["European robin", 1],
      ["first step", 0],
      ["second step", 0],
    ]);
    const code = labels(document.items, "code").map(text);
    assert.deepEqual(code, ["count = 3\nprint(count)", "def tally(n):\n    return n + 1"]);
    const tables = labels(document.items, "table");
    assert.equal(tables.length, 2);
    const cells = tables.map((t) => (t.label === "table" ? t.cells.map((c) => c.text) : []));
    assert.deepEqual(cells[0], ["Bird", "Count", "Wren", "4", "Finch", "7"]);
    assert.deepEqual(cells[1], ["Tree", "Height", "Oak", "20 m", "Ash", "25 m"]);
    assert.match(result.markdown, /\[reference\]\(https:\/\/example\.org\/birds\)/);
    assert.match(result.markdown, /Bees are insects\./);
    assert.doesNotMatch(result.markdown, /comment and is dropped|\.\. note|code-block/);
  });

  test("Org: title, headlines without keywords or tags, lists, a table with its header, source blocks; drawers dropped", async () => {
    const { document, result } = await parseDocument({ text: ORG, mimeType: "text/org" });
    assert.equal(document.backend, "org");
    const headings = labels(document.items, "section_header").map((h) => [
      text(h),
      h.label === "section_header" ? h.level : 0,
    ]);
    assert.deepEqual(labels(document.items, "title").map(text), ["Garden Log"]);
    assert.deepEqual(headings, [
      ["Planting", 2],
      ["Harvest", 3],
    ]);
    assert.deepEqual(labels(document.items, "list_item").map(text), [
      "seeds",
      "tools",
      "spade",
      "dig",
      "water",
    ]);
    const table = labels(document.items, "table")[0];
    assert.ok(table?.label === "table");
    assert.deepEqual(
      table.cells.filter((c) => c.columnHeader).map((c) => c.text),
      ["Crop", "Kilos"],
    );
    assert.deepEqual(labels(document.items, "code").map(text), ['print("harvest")']);
    assert.match(
      result.markdown,
      /\*\*tomatoes\*\* and \*basil\* with `compost`; see \[the guide\]\(https:\/\/example\.org\/garden\)/,
    );
    assert.doesNotMatch(result.markdown, /hidden-drawer-text|TODO|:spring:|comment line/);
  });

  test("bad input: binary bytes are refused; empty text is an empty document", async () => {
    for (const mimeType of ["text/x-rst", "text/org"]) {
      await assert.rejects(
        parseDocument({ bytes: new Uint8Array([1, 0, 2, 0, 0, 0, 3, 0, 255, 0]), mimeType }),
        (error: unknown) => error instanceof DocumentLoadError && /binary/.test(error.message),
      );
      const { document } = await parseDocument({ text: "", mimeType });
      assert.equal(document.items.length, 0);
    }
  });
});
