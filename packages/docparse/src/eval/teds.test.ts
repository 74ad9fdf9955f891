import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { parseBracketTable, parseHtmlTable, teds } from "./teds.ts";
import { treeEditDistance, treeSize } from "./tree-edit-distance.ts";

/** Test vectors of docling-metrics-table, in the shared corpus. */
const VECTORS = "docling-metrics/packages/docling-metrics-table/tests/data";
const TOLERANCE = 1e-6;

/**
 * Expected values of the vectors' Python test (test_teds_metric.py). docling-metrics computes TEDS with unit
 * rename costs on whole node labels, so a cell whose text differs at all costs 1: our `cellText: "exact"`.
 * Structure-only scores and tree sizes do not depend on that choice.
 */
const EXPECTED = {
  "CHD.2018.page_21.pdf_147707_0": {
    teds: 0.285714285714286,
    structure: 0.571428571428571,
    sizeA: 14,
    sizeB: 12,
  },
  "WU.2016.page_106.pdf_68194_0": {
    teds: 0.323529411764706,
    structure: 0.980392156862745,
    sizeA: 101,
    sizeB: 102,
  },
};

const close = (actual: number, expected: number) =>
  assert.ok(Math.abs(actual - expected) <= TOLERANCE * Math.abs(expected), `${actual} ≠ ${expected}`);

describe("tree edit distance", () => {
  const leaf = (label: string) => ({ label, children: [] });
  const unit = (x: string, y: string) => (x === y ? 0 : 1);

  test("counts inserted, deleted and renamed nodes", () => {
    const a = { label: "a", children: [leaf("b"), leaf("c")] };
    assert.equal(treeEditDistance(a, a, unit), 0);
    assert.equal(treeEditDistance(a, { label: "a", children: [leaf("b")] }, unit), 1);
    assert.equal(treeEditDistance(a, { label: "a", children: [leaf("b"), leaf("x")] }, unit), 1);
    assert.equal(treeEditDistance(a, leaf("z"), unit), 3);
    // Zhang & Shasha's example: f(d(a c(b)) e) → f(c(d(a b)) e) costs 2.
    const t1 = {
      label: "f",
      children: [{ label: "d", children: [leaf("a"), { label: "c", children: [leaf("b")] }] }, leaf("e")],
    };
    const t2 = {
      label: "f",
      children: [{ label: "c", children: [{ label: "d", children: [leaf("a"), leaf("b")] }] }, leaf("e")],
    };
    assert.equal(treeEditDistance(t1, t2, unit), 2);
    assert.equal(treeSize(t1), 6);
  });
});

describe("TEDS", () => {
  test("reads HTML tables with sections, spans, headers, entities and left-out end tags", () => {
    const tree = parseHtmlTable(
      '<p>x</p><TABLE><thead><tr><th colspan="2">A &amp; B</th></thead><tbody><tr><td rowspan=2> 1 <b>x</b>' +
        "<td>2<br>3</tr><tr><td>4</td></tr></tbody></TABLE><table><tr><td>next</td></tr></table>",
    );
    assert.deepEqual(
      tree.children.map((section) => [section.label.tag, section.children.length]),
      [
        ["thead", 1],
        ["tbody", 2],
      ],
    );
    assert.deepEqual(tree.children[0].children[0].children[0].label, {
      tag: "th",
      colspan: 2,
      rowspan: 1,
      text: "A & B",
    });
    assert.deepEqual(
      tree.children[1].children[0].children.map((cell) => [cell.label.text, cell.label.rowspan]),
      [
        ["1 x", 2],
        ["2 3", 1],
      ],
    );
    assert.equal(treeSize(tree), 10);
  });

  test("scores identical tables 1, and cell text by normalized Levenshtein", () => {
    const a = "<table><tr><td>kitten</td><td>b</td></tr></table>";
    assert.deepEqual(teds(a, a), { score: 1, distance: 0, sizeA: 4, sizeB: 4 });
    const b = "<table><tr><td>sitting</td><td>b</td></tr></table>";
    assert.equal(teds(a, b).score, 1 - 3 / 7 / 4);
    assert.equal(teds(a, b, { cellText: "exact" }).score, 1 - 1 / 4);
    assert.equal(teds(a, b, { structureOnly: true }).score, 1);
    // A span differs: the cell is renamed at cost 1 whatever its text.
    const spanned = '<table><tr><td colspan="2">kitten</td></tr></table>';
    assert.equal(teds(a, spanned, { structureOnly: true }).score, 1 - 2 / 4);
    // Against no cell at all, every node of the larger table is inserted or deleted.
    assert.equal(teds(a, "<table></table>").score, 1 - 3 / 4);
  });

  test("reads bracket notation and rejects malformed input", () => {
    const tree = parseBracketTable(
      `{"tag": table{"tag": tr{"tag": td, "colspan": 2, "rowspan": 1, "text": ['a', "'", '\\\\', '\\u00e9']}}}`,
    );
    assert.deepEqual(tree.children[0].children[0].label, {
      tag: "td",
      colspan: 2,
      rowspan: 1,
      text: "a'\\é",
    });
    assert.throws(() => parseBracketTable('{"tag": table{'), /malformed/);
    assert.throws(() => parseBracketTable('{"tag": table}}'), /trailing/);
  });
});

describe("TEDS against the docling-metrics-table vectors", { skip: NO_CORPUS }, () => {
  const read = (name: string) => readFileSync(corpusPath(VECTORS, name), "utf8");

  for (const [stem, expected] of Object.entries(EXPECTED)) {
    test(stem, () => {
      const htmlA = read(`GT_${stem}.html`);
      const htmlB = read(`pred_${stem}.html`);
      const bracketA = parseBracketTable(read(`GT_${stem}.bracket`));
      const bracketB = parseBracketTable(read(`pred_${stem}.bracket`));
      // The HTML and the bracket notation of a table are the same tree.
      assert.deepEqual(parseHtmlTable(htmlA), bracketA);
      assert.deepEqual(parseHtmlTable(htmlB), bracketB);

      const html = teds(htmlA, htmlB, { cellText: "exact" });
      close(html.score, expected.teds);
      assert.equal(html.sizeA, expected.sizeA);
      assert.equal(html.sizeB, expected.sizeB);
      close(teds(bracketA, bracketB, { cellText: "exact" }).score, expected.teds);
      for (const cellText of ["exact", "levenshtein"] as const) {
        const structure = teds(htmlA, htmlB, { structureOnly: true, cellText });
        close(structure.score, expected.structure);
        assert.equal(structure.sizeA, expected.sizeA);
      }
      // Partial credit for similar cell texts can only raise the score.
      const graded = teds(htmlA, htmlB).score;
      assert.ok(
        graded >= expected.teds - TOLERANCE && graded <= expected.structure + TOLERANCE,
        String(graded),
      );
    });
  }

  test("broken.bracket is rejected", () => {
    assert.throws(() => parseBracketTable(read("broken.bracket")), /malformed/);
  });
});
