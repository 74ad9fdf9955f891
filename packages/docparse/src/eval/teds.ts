import { codePoints, levenshtein } from "../text/edit-distance.ts";
import { decodeEntities } from "./html-entities.ts";
import { type Tree, treeEditDistance, treeSize } from "./tree-edit-distance.ts";

/**
 * TEDS, tree-edit-distance-based similarity of tables (Zhong et al., 2020): a table is the tree
 * table → (thead | tbody | tfoot)? → tr → td | th, and
 *
 *   TEDS(a, b) = 1 − TED(a, b) / max(|a|, |b|)
 *
 * where |t| counts the nodes and TED charges 1 per inserted or deleted node and, per renamed node, 1 when the
 * tags, colspans or rowspans differ, else for two cells the Levenshtein distance of their texts over the longer
 * text's length (over code points), and 0 for anything else. TEDS-structure scores every cell text as equal.
 * Both tables' trees keep the sections they were written with: a `tbody` present in one HTML and left out of
 * the other costs one node.
 */

/** A node's label: its tag, spans (1 for anything but a cell) and, for cells, the text. */
export interface TableLabel {
  tag: string;
  colspan: number;
  rowspan: number;
  text: string;
}

export type TableTree = Tree<TableLabel>;

const CELL_TAGS = new Set(["td", "th"]);
const SECTION_TAGS = new Set(["thead", "tbody", "tfoot"]);
/** Tags inside a cell that separate the words around them. */
const WORD_BREAKS = new Set(["br", "p", "div", "li", "tr", "td", "th", "table"]);

function spanOf(attributes: string, name: string): number {
  const match = new RegExp(`\\b${name}\\s*=\\s*["']?\\s*(\\d+)`, "i").exec(attributes);
  const value = match ? Number.parseInt(match[1], 10) : 1;
  return Math.max(value, 1);
}

function node(tag: string, colspan = 1, rowspan = 1, text = ""): TableTree {
  return { label: { tag, colspan, rowspan, text }, children: [] };
}

/**
 * The tree of the first `<table>` of an HTML fragment. End tags that HTML lets one leave out (`</td>`, `</tr>`)
 * may be missing; tags inside a cell (`<b>`, `<br>`, a nested table) only contribute their text. A cell's text
 * is its character data with entities decoded, whitespace runs collapsed and ends trimmed.
 *
 * @example
 * parseHtmlTable('<table><tr><td colspan="2">a</td></tr></table>').children[0].children[0].label;
 * // { tag: "td", colspan: 2, rowspan: 1, text: "a" }
 */
export function parseHtmlTable(html: string): TableTree {
  const start = html.search(/<table\b/i);
  if (start < 0) throw new Error("no <table> in the HTML");
  const root = node("table");
  let section: TableTree | null = null;
  let row: TableTree | null = null;
  let cell: TableTree | null = null;
  let nestedTables = 0;
  let text = "";
  const closeCell = () => {
    if (cell) cell.label.text = decodeEntities(text).replace(/\s+/g, " ").trim();
    cell = null;
    text = "";
  };
  const closeRow = () => {
    closeCell();
    row = null;
  };
  const tokens = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>|<!--[\s\S]*?-->|([^<]+|<)/g;
  let first = true;
  for (const [, closing, rawTag, attributes, data] of html.slice(start).matchAll(tokens)) {
    if (data !== undefined) {
      if (cell) text += data;
      continue;
    }
    if (rawTag === undefined) continue;
    const tag = rawTag.toLowerCase();
    if (first) {
      first = false;
      continue;
    }
    // Markup inside a cell only separates words: a nested table is flattened into the cell's text.
    if (cell && tag === "table" && !closing) nestedTables++;
    const structural = tag === "table" || tag === "tr" || CELL_TAGS.has(tag) || SECTION_TAGS.has(tag);
    if (nestedTables > 0 || (cell && !structural)) {
      if (nestedTables > 0 && tag === "table" && closing) nestedTables--;
      if (WORD_BREAKS.has(tag)) text += " ";
      continue;
    }
    if (tag === "table") {
      if (closing) break;
      // A table nested outside any cell is not part of this one.
      continue;
    }
    if (SECTION_TAGS.has(tag)) {
      closeRow();
      section = closing ? null : node(tag);
      if (section) root.children.push(section);
    } else if (tag === "tr") {
      closeRow();
      if (!closing) {
        row = node("tr");
        (section ?? root).children.push(row);
      }
    } else if (CELL_TAGS.has(tag)) {
      closeCell();
      if (!closing) {
        if (!row) {
          row = node("tr");
          (section ?? root).children.push(row);
        }
        cell = node(tag, spanOf(attributes, "colspan"), spanOf(attributes, "rowspan"));
        row.children.push(cell);
      }
    }
  }
  closeRow();
  return root;
}

/** Reads one Python string literal (`'a'`, `"'"`, with backslash escapes) starting at `at`. */
function readPythonString(source: string, at: number): { value: string; end: number } {
  const quote = source[at];
  let value = "";
  let i = at + 1;
  while (i < source.length && source[i] !== quote) {
    if (source[i] !== "\\") {
      value += source[i++];
      continue;
    }
    const escaped = source[i + 1];
    const hex = (length: number) => {
      const digits = source.slice(i + 2, i + 2 + length);
      if (!/^[0-9a-fA-F]+$/.test(digits) || digits.length !== length) throw new Error(`bad escape at ${i}`);
      value += String.fromCodePoint(Number.parseInt(digits, 16));
      i += 2 + length;
    };
    if (escaped === "x") hex(2);
    else if (escaped === "u") hex(4);
    else if (escaped === "U") hex(8);
    else {
      const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"' };
      if (!(escaped in simple)) throw new Error(`bad escape at ${i}`);
      value += simple[escaped];
      i += 2;
    }
  }
  if (i >= source.length) throw new Error("unterminated string");
  return { value, end: i + 1 };
}

/**
 * The tree of a table in bracket notation, each node `{label children…}` with the label
 * `"tag": td, "colspan": 1, "rowspan": 1, "text": ['a', 'b']` (spans and text only on cells).
 * Throws on malformed input.
 *
 * @example
 * parseBracketTable('{"tag": table{"tag": tr{"tag": td, "colspan": 1, "rowspan": 1, "text": [\'a\']}}}');
 */
export function parseBracketTable(bracket: string): TableTree {
  const source = bracket.trim();
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`malformed bracket notation at ${i}: ${what}`);
  };
  const skipSpaces = () => {
    while (i < source.length && /\s/.test(source[i])) i++;
  };
  const expect = (literal: string) => {
    skipSpaces();
    if (!source.startsWith(literal, i)) fail(`expected ${literal}`);
    i += literal.length;
  };
  const readNode = (): TableTree => {
    expect("{");
    expect('"tag":');
    skipSpaces();
    const tag = /^[A-Za-z][A-Za-z0-9]*/.exec(source.slice(i))?.[0] ?? fail("expected a tag");
    i += tag.length;
    const result = node(tag.toLowerCase());
    skipSpaces();
    while (source[i] === ",") {
      i++;
      skipSpaces();
      const key = /^"(colspan|rowspan|text)":/.exec(source.slice(i))?.[1] ?? fail("expected a field");
      i += key.length + 3;
      skipSpaces();
      if (key === "text") {
        expect("[");
        const chars: string[] = [];
        skipSpaces();
        while (source[i] !== "]") {
          if (source[i] !== "'" && source[i] !== '"') fail("expected a string");
          const { value, end } = readPythonString(source, i);
          chars.push(value);
          i = end;
          skipSpaces();
          if (source[i] === ",") i++;
          skipSpaces();
          if (i >= source.length) fail("unterminated list");
        }
        i++;
        result.label.text = chars.join("");
      } else {
        const digits = /^\d+/.exec(source.slice(i))?.[0] ?? fail("expected a number");
        i += digits.length;
        result.label[key as "colspan" | "rowspan"] = Number.parseInt(digits, 10);
      }
      skipSpaces();
    }
    while (source[i] === "{") {
      result.children.push(readNode());
      skipSpaces();
    }
    expect("}");
    return result;
  };
  const root = readNode();
  skipSpaces();
  if (i !== source.length) fail("trailing characters");
  return root;
}

export interface TedsResult {
  /** In [0, 1]; 1 for identical tables. */
  score: number;
  distance: number;
  sizeA: number;
  sizeB: number;
}

/** Options of `teds`. */
export interface TedsOptions {
  /** Score structure only: cell texts always match. */
  structureOnly?: boolean;
  /**
   * How two cell texts are compared: `levenshtein` (the default, as TEDS was defined) costs their normalized
   * Levenshtein distance; `exact` costs 1 unless they are equal, the unit-cost variant the docling-metrics
   * vectors were computed with.
   */
  cellText?: "levenshtein" | "exact";
}

/**
 * TEDS between two tables, given as trees or as HTML.
 *
 * @example
 * teds("<table><tr><td>a</td></tr></table>", "<table><tr><td>b</td></tr></table>").score; // 1 − 1/3
 */
export function teds(a: TableTree | string, b: TableTree | string, options: TedsOptions = {}): TedsResult {
  const treeA = typeof a === "string" ? parseHtmlTable(a) : a;
  const treeB = typeof b === "string" ? parseHtmlTable(b) : b;
  const rename = (x: TableLabel, y: TableLabel): number => {
    if (x.tag !== y.tag || x.colspan !== y.colspan || x.rowspan !== y.rowspan) return 1;
    if (options.structureOnly || !CELL_TAGS.has(x.tag) || x.text === y.text) return 0;
    if (options.cellText === "exact") return 1;
    const textA = codePoints(x.text);
    const textB = codePoints(y.text);
    return levenshtein(textA, textB) / Math.max(textA.length, textB.length);
  };
  const distance = treeEditDistance(treeA, treeB, rename);
  const sizeA = treeSize(treeA);
  const sizeB = treeSize(treeB);
  return { score: 1 - distance / Math.max(sizeA, sizeB), distance, sizeA, sizeB };
}
