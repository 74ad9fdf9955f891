import type { Box } from "../model.ts";

/** A centred line's middle is within this share of the page's width from the page's middle. */
const CENTRED = 0.05;

/** What the rule looks at of a placed element (reading-order's Placed). */
interface Element {
  box: Box;
  float?: boolean;
  aside?: boolean;
}

/** Whether a box's middle lies inside another box. */
function middleIn(inner: Box, outer: Box): boolean {
  const x = (inner.x1 + inner.x2) / 2;
  const y = (inner.y1 + inner.y2) / 2;
  return x >= outer.x1 && x <= outer.x2 && y >= outer.y1 && y <= outer.y2;
}

/** A picture with words on it and nothing else (a logo whose lettering OCR or the text layer reads). */
function logoColumn(column: readonly Element[]): boolean {
  const pictures = column.filter((e) => e.float);
  const words = column.filter((e) => !e.float && !e.aside);
  return (
    pictures.length > 0 &&
    words.length > 0 &&
    words.every((w) => pictures.some((p) => middleIn(w.box, p.box)))
  );
}

/**
 * Columns in reading order with a logo beside a centred title block read after that block: where a region's
 * columns are a picture holding its own words (a logo's lettering: `Employment Development Department` in an
 * agency's emblem) and, beside it, two lines or more each centred on the page (a report's title lines under its
 * title), the centred lines are read first, so the logo's words do not come between a title and its subtitle. Any
 * other columns are returned as they came.
 */
export function logoColumnsLast<T extends Element>(columns: T[][], pageMiddle: number | undefined): T[][] {
  if (pageMiddle === undefined || columns.length < 2) return columns;
  const logos = columns.filter(logoColumn);
  if (logos.length === 0 || logos.length === columns.length) return columns;
  const rest = columns.filter((column) => !logos.includes(column));
  const lines = rest.flat().filter((e) => !e.float && !e.aside);
  const centred = lines.every(
    (e) => Math.abs((e.box.x1 + e.box.x2) / 2 - pageMiddle) <= 2 * pageMiddle * CENTRED,
  );
  return centred && lines.length >= 2 ? [...rest, ...logos] : columns;
}
