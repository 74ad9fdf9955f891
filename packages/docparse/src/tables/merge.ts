import { box, type DetectedTable } from "../paginated/geometry.ts";
import { median } from "../statistics.ts";

/**
 * Tables continued across pages: a table ending near the bottom of one page and one starting near the top of the
 * next, with the same columns at the same places (relative to the table, since margins alternate between left and
 * right pages), are one table. This feeds the API's `merged_tables` when `table_merging` is on.
 */

export interface PageTable {
  /** 1-based. */
  page: number;
  table: DetectedTable;
  /** Points. */
  pageHeight: number;
}

export interface TableMergeGroup {
  /** Indexes of the merged parts in the input, in reading order. */
  members: number[];
  /** The pages the parts are on, in order: `merge_actions.pages` and `pages_merged`. */
  pages: number[];
  startPage: number;
  endPage: number;
  /** Columns every part has: `merge_actions.target_columns`. */
  numCols: number;
  /**
   * The parts' rows one after another, a continuation's header rows dropped when they repeat the first part's.
   * Its box is the first part's; each cell keeps its box on its own page, which `rowPages` names per row.
   */
  table: DetectedTable;
  rowPages: number[];
}

/** A table ends in the bottom part of its page, and one starts in the top part of its page. */
const BOTTOM_SHARE = 0.6;
const TOP_SHARE = 0.4;

/** Left and right edge of each column relative to the table's left edge, from the cells spanning one column. */
function columnEdges(table: DetectedTable): { x1: number; x2: number }[] | null {
  const edges: { x1: number[]; x2: number[] }[] = Array.from({ length: table.numCols }, () => ({
    x1: [],
    x2: [],
  }));
  for (const cell of table.cells) {
    if (cell.colSpan !== 1 || cell.col >= table.numCols) continue;
    edges[cell.col].x1.push(cell.box.x1 - table.box.x1);
    edges[cell.col].x2.push(cell.box.x2 - table.box.x1);
  }
  if (edges.some((e) => e.x1.length === 0)) return null;
  return edges.map((e) => ({ x1: median(e.x1), x2: median(e.x2) }));
}

/** Same number of columns, at the same places and of the same width within a few percent of the table's width. */
function sameColumns(a: DetectedTable, b: DetectedTable): boolean {
  if (a.numCols !== b.numCols || a.numCols < 2) return false;
  const widthA = box.width(a.box);
  const widthB = box.width(b.box);
  if (Math.abs(widthA - widthB) > 0.1 * Math.max(widthA, widthB)) return false;
  const edgesA = columnEdges(a);
  const edgesB = columnEdges(b);
  if (!edgesA || !edgesB) return false;
  const tol = Math.max(8, 0.04 * Math.max(widthA, widthB));
  return edgesA.every((e, c) => Math.abs(e.x1 - edgesB[c].x1) <= tol && Math.abs(e.x2 - edgesB[c].x2) <= tol);
}

const normalize = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** The texts of a table's row, one per column (a spanning cell's text in its first column). */
function rowTexts(table: DetectedTable, row: number): string[] {
  const texts = Array<string>(table.numCols).fill("");
  for (const cell of table.cells) if (cell.row === row) texts[cell.col] = normalize(cell.text);
  return texts;
}

/** How many leading rows of `next` repeat the header rows of `first` (or its first row, when it has no header). */
function repeatedHeaderRows(first: DetectedTable, next: DetectedTable): number {
  let header = 0;
  while (header < first.numRows && first.cells.some((c) => c.row === header && c.columnHeader)) header++;
  const compare = Math.max(header, 1);
  if (next.numRows <= compare) return 0;
  for (let r = 0; r < compare; r++) {
    const a = rowTexts(first, r);
    const b = rowTexts(next, r);
    if (a.every((t) => t === "") || a.some((t, c) => t !== b[c])) return 0;
  }
  return compare;
}

function combine(parts: readonly PageTable[]): { table: DetectedTable; rowPages: number[] } {
  const [first] = parts;
  const cells: DetectedTable["cells"] = [];
  const rowPages: number[] = [];
  let offset = 0;
  parts.forEach((part, k) => {
    const skip = k === 0 ? 0 : repeatedHeaderRows(first.table, part.table);
    for (const cell of part.table.cells) {
      if (cell.row < skip) continue;
      const rowSpan = Math.min(cell.rowSpan, part.table.numRows - cell.row);
      cells.push({
        ...cell,
        row: cell.row - skip + offset,
        rowSpan,
        columnHeader: k === 0 && cell.columnHeader,
      });
    }
    for (let r = skip; r < part.table.numRows; r++) rowPages.push(part.page);
    offset += part.table.numRows - skip;
  });
  return {
    table: {
      box: first.table.box,
      numRows: offset,
      numCols: first.table.numCols,
      cells,
      method: first.table.method,
    },
    rowPages,
  };
}

/**
 * Groups of tables that continue one another across consecutive pages; tables that stand alone are left out.
 *
 * @example
 * const groups = mergeContinuedTables(found.map(({ page, table }) => ({ page, table, pageHeight: 792 })));
 * // [{ members: [0, 1], pages: [3, 4], startPage: 3, endPage: 4, numCols: 5, table, rowPages }]
 */
export function mergeContinuedTables(tables: readonly PageTable[]): TableMergeGroup[] {
  const order = tables
    .map((_, i) => i)
    .sort((i, j) => tables[i].page - tables[j].page || tables[i].table.box.y1 - tables[j].table.box.y1);
  const firstOnPage = new Map<number, number>();
  const lastOnPage = new Map<number, number>();
  for (const i of order) {
    if (!firstOnPage.has(tables[i].page)) firstOnPage.set(tables[i].page, i);
    lastOnPage.set(tables[i].page, i);
  }
  const next = new Map<number, number>();
  const hasPrevious = new Set<number>();
  for (const [page, i] of lastOnPage) {
    const j = firstOnPage.get(page + 1);
    if (j === undefined) continue;
    const a = tables[i];
    const b = tables[j];
    if (a.table.box.y2 < BOTTOM_SHARE * a.pageHeight || b.table.box.y1 > TOP_SHARE * b.pageHeight) continue;
    if (!sameColumns(a.table, b.table)) continue;
    next.set(i, j);
    hasPrevious.add(j);
  }
  const groups: TableMergeGroup[] = [];
  for (const i of order) {
    if (hasPrevious.has(i) || !next.has(i)) continue;
    const members = [i];
    for (let k = next.get(i); k !== undefined; k = next.get(k)) members.push(k);
    const parts = members.map((m) => tables[m]);
    const { table, rowPages } = combine(parts);
    const pages = parts.map((p) => p.page);
    groups.push({
      members,
      pages,
      startPage: pages[0],
      endPage: pages[pages.length - 1],
      numCols: table.numCols,
      table,
      rowPages,
    });
  }
  return groups;
}
