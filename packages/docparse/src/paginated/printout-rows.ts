import type { Box } from "../model.ts";
import { median } from "../statistics.ts";
import { box } from "./geometry.ts";
import { onBaseline } from "./option-columns.ts";

/**
 * A printout's fields: a report printed from a database or a line printer sets each record's fields on one line
 * in a fixed-width face, padded with spaces so that each field starts at its column. The space between two fields
 * runs down the whole list, so column by column every record would be torn apart, its type read a page away from
 * its make and its serial number. The columns are read along the rows instead when the region is set in a
 * fixed-width face throughout, its median line holds three fields or more set two spaces apart or wider, and
 * each column's lines stand on the baselines of the column beside it: fields of one line, not blocks of text
 * side by side (a typed letter's address beside its date holds two pieces a line; prose columns set in a
 * typewriter face do not keep their lines level with each other's).
 */

/** Text in one of these faces is set in a fixed width: Courier, a terminal's or a line printer's face. */
const FIXED_WIDTH = /mono|courier|consol|menlo|inconsolata|typewriter|lucidaconsole|fixedsys|letter ?gothic/i;

/** The fewest fields a printout's line holds, on the median line. */
const MIN_FIELDS = 3;
/** The fewest lines of a column level with the column beside it: a record of two lines, not one label beside it. */
const MIN_LEVEL_LINES = 2;
/** Ems between two fields: wider than a word space (0.6 em in a fixed-width face), at least two spaces' width. */
const FIELD_GAP = 1;
/** Share of the characters of the region set in a fixed-width face. */
const FIXED_SHARE = 0.9;
/** Share of a column's lines that stand on a baseline of the column beside it. */
const LEVEL_SHARE = 0.8;

/** A piece of text as reading order places it: its box, its text, and its font's name. */
export interface PrintoutText {
  box: Box;
  text: string;
  fontName?: string;
}

/** Whether a font's name is that of a fixed-width face. */
export function fixedWidthFace(fontName: string): boolean {
  return FIXED_WIDTH.test(fontName);
}

/** Whether the columns of a region (their text, left to right) are a printout's fields, read along the rows. */
export function printoutColumns(parts: readonly (readonly PrintoutText[])[]): boolean {
  if (parts.length < 2 || parts.some((part) => part.length === 0)) return false;
  const pieces = parts.flat();
  const total = pieces.reduce((n, piece) => n + piece.text.length, 0);
  const fixed = pieces
    .filter((piece) => piece.fontName && fixedWidthFace(piece.fontName))
    .reduce((n, piece) => n + piece.text.length, 0);
  if (total === 0 || fixed < total * FIXED_SHARE) return false;
  const rows = parts.map((part) => rowsOf(part).map(union));
  for (let k = 1; k < rows.length; k++) {
    const [fewer, more] =
      rows[k - 1].length <= rows[k].length ? [rows[k - 1], rows[k]] : [rows[k], rows[k - 1]];
    const level = fewer.filter((row) => more.some((other) => onBaseline(row, other))).length;
    if (level < MIN_LEVEL_LINES || level < fewer.length * LEVEL_SHARE) return false;
  }
  // Each line of the region holds fields set well apart: three or more on the median line.
  const lines = rowsOf(pieces);
  const fields = lines.map((line) => {
    const sorted = [...line].sort((a, b) => a.box.x1 - b.box.x1);
    const size = median(sorted.map((piece) => piece.box.y2 - piece.box.y1));
    return (
      1 + sorted.filter((piece, i) => i > 0 && piece.box.x1 - sorted[i - 1].box.x2 > size * FIELD_GAP).length
    );
  });
  return median(fields) >= MIN_FIELDS;
}

/** Pieces (or lines) grouped into rows standing on one baseline, top to bottom. */
function rowsOf<T extends { box: Box }>(pieces: readonly T[]): T[][] {
  const rows: T[][] = [];
  for (const piece of [...pieces].sort((a, b) => a.box.y2 - b.box.y2)) {
    const last = rows.at(-1);
    if (last && onBaseline(last[0].box, piece.box)) last.push(piece);
    else rows.push([piece]);
  }
  return rows;
}

/** The box around a line's pieces. */
function union(row: readonly PrintoutText[]): Box {
  return box.union(row.map((piece) => piece.box));
}

/** A printout's lines, those standing on one baseline joined left to right into one: a record's line of fields. */
export function printoutLines<L extends { box: Box }>(lines: readonly L[], join: (row: L[]) => L): L[] {
  return rowsOf(lines).map((row) =>
    row.length > 1 ? join(row.sort((a, b) => a.box.x1 - b.box.x1)) : row[0],
  );
}
