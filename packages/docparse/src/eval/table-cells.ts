/**
 * Cell accuracy of detected tables against expected grids (tabula-java's CSVs, camelot's expected data): the share
 * of the expected non-empty cells found with the same text at the same place in a detected table. "The same
 * place" is relative: each expected grid is laid over the detected table at the row and column offset most of
 * its cells agree on (an expected grid may be an area of a larger table), so one lost row costs that row only,
 * while a lost column boundary or a row cut in two costs every cell it moves.
 */

/** A detected table as a grid: a spanning cell's text in its top-left slot, the other slots empty. */
export type TextGrid = string[][];

/** Text compared without its whitespace (cells wrap differently) and in NFC. */
export function cellKey(text: string): string {
  return text.normalize("NFC").replace(/\s+/g, "");
}

/**
 * Expected CSV records cut into tables where the number of fields changes (one CSV may hold several tables
 * written one after the other), trailing empty records dropped.
 */
export function expectedTables(records: readonly string[][]): TextGrid[] {
  const tables: TextGrid[] = [];
  let width = -1;
  for (const record of records) {
    if (record.every((field) => field.trim() === "")) continue;
    if (record.length !== width) {
      tables.push([]);
      width = record.length;
    }
    tables[tables.length - 1].push([...record]);
  }
  return tables;
}

export interface CellScore {
  /** Expected non-empty cells. */
  expected: number;
  /** Of those, found in place. */
  matched: number;
}

/** Expected cells of one grid found in place in one detected grid, at the offset most of them agree on. */
export function placedMatches(expected: TextGrid, detected: TextGrid): number {
  return placedCells(expected, detected).length;
}

/** The positions ([row, column]) of the expected cells `placedMatches` counts. */
function placedCells(expected: TextGrid, detected: TextGrid): [number, number][] {
  const where = new Map<string, [number, number][]>();
  detected.forEach((row, r) => {
    row.forEach((text, c) => {
      const key = cellKey(text);
      if (key === "") return;
      let list = where.get(key);
      if (!list) {
        list = [];
        where.set(key, list);
      }
      list.push([r, c]);
    });
  });
  const votes = new Map<string, number>();
  expected.forEach((row, r) => {
    row.forEach((text, c) => {
      const key = cellKey(text);
      if (key === "") return;
      // Each expected cell votes once per offset, however often its text repeats in the detected table.
      const offsets = new Set((where.get(key) ?? []).map(([dr, dc]) => `${dr - r},${dc - c}`));
      for (const offset of offsets) votes.set(offset, (votes.get(offset) ?? 0) + 1);
    });
  });
  let best = "";
  let bestCount = 0;
  for (const [offset, count] of votes) {
    if (count > bestCount) {
      best = offset;
      bestCount = count;
    }
  }
  if (bestCount === 0) return [];
  const [dr, dc] = best.split(",").map(Number);
  const cells: [number, number][] = [];
  expected.forEach((row, r) => {
    row.forEach((text, c) => {
      const key = cellKey(text);
      if (key !== "" && cellKey(detected[r + dr]?.[c + dc] ?? "") === key) cells.push([r, c]);
    });
  });
  return cells;
}

/**
 * The score of one expected CSV over the tables detected in the same document. Each expected table takes the
 * detected table that holds most of its cells, then the next one for the cells still unmatched, and so on, each
 * detected table used once: an expected CSV may hold two tables of one width one after the other, which a
 * reader rightly finds as two.
 */
export function scoreCells(expected: readonly TextGrid[], detected: readonly TextGrid[]): CellScore {
  let total = 0;
  let matched = 0;
  const unused = new Set(detected.keys());
  for (const grid of expected) {
    total += grid.flat().filter((text) => cellKey(text) !== "").length;
    const left = grid.map((row) => [...row]);
    let pieces = 0;
    for (;;) {
      let bestTable = -1;
      let bestCells: [number, number][] = [];
      for (const t of unused) {
        const cells = placedCells(left, detected[t]);
        if (cells.length > bestCells.length) {
          bestTable = t;
          bestCells = cells;
        }
      }
      // A further piece of the table is a row of cells at least, not one coincidental number.
      if (bestTable < 0 || bestCells.length < (pieces === 0 ? 1 : 2)) break;
      unused.delete(bestTable);
      pieces++;
      matched += bestCells.length;
      for (const [r, c] of bestCells) left[r][c] = "";
    }
  }
  return { expected: total, matched };
}

/** A model table's cells as a grid of its rows and columns. */
export function tableGrid(table: {
  numRows: number;
  numCols: number;
  cells: readonly { row: number; col: number; text: string }[];
}): TextGrid {
  const grid: TextGrid = Array.from({ length: table.numRows }, () => Array(table.numCols).fill(""));
  for (const cell of table.cells) {
    if (cell.row < table.numRows && cell.col < table.numCols) grid[cell.row][cell.col] = cell.text;
  }
  return grid;
}
