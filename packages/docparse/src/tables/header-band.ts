/**
 * Tables under a shaded header band and no rules (an invoice's items under a grey strip of labels): the band's
 * labels stand one over each column of the rows below it, as header-above.ts asks of labels over a rule. The rows
 * are the lines close under the band, down to the first gap wider than a line or a line of running text across
 * the columns. Aligned columns find such a table from three rows; this finds it from one.
 */
import type { Box } from "../model.ts";
import { box, type DetectedTable, type PageGeometry } from "../paginated/geometry.ts";
import { sharedGaps, type WordLine, wordLines } from "./aligned.ts";
import { frameTable } from "./frame-table.ts";
import { headerAbove } from "./header-above.ts";
import { type Frame, runsIn } from "./ruled-frame.ts";

/** The tallest band, in lines of its text: a strip for one row of labels, wrapped at most once or twice. */
const MAX_BAND_LINES = 3;
/** Rows stand at most this many line heights apart (the blank between one item and the next). */
const ROW_GAP = 1.2;

/** Tables under filled bands of the page, none of them where `exclude` has a table already. */
export function headerBandTables(page: PageGeometry, exclude: readonly Box[]): DetectedTable[] {
  const tables: DetectedTable[] = [];
  for (const band of page.rects) {
    if (box.width(band) < 0.3 * page.width) continue;
    if ([...exclude, ...tables.map((t) => t.box)].some((b) => box.intersection(b, band) > 0)) continue;
    const labels = wordLines(runsIn(page.runs, band));
    if (labels.length === 0 || labels.length > MAX_BAND_LINES) continue;
    const size = Math.max(...labels.map((l) => l.fontSize));
    if (box.height(band) > (MAX_BAND_LINES + 1) * 1.5 * size) continue;
    const body = rowsUnder(page, band, size);
    if (body.length === 0) continue;
    const top = headerAbove(page.runs, band.y2, band.x1, band.x2, body);
    if (top === null) continue;
    const bottom = Math.max(...body.map((l) => l.y2)) + 1;
    const area = { x1: band.x1, y1: band.y1, x2: band.x2, y2: bottom };
    const inside = runsIn(page.runs, area);
    const gaps = sharedGaps([...labels, ...body].filter((l) => l.segments.length >= 2)).filter(
      (g) => g.x1 > band.x1 && g.x2 < band.x2,
    );
    if (gaps.length < 2) continue;
    const frame: Frame = {
      xs: [band.x1, ...gaps.map((g) => (g.x1 + g.x2) / 2), band.x2],
      xRules: [[], ...gaps.map(() => null), []],
      ys: [band.y1, band.y2, bottom],
      yRules: [[], [{ pos: band.y2, a: band.x1, b: band.x2, width: 0 }], []],
      booktabs: true,
      headerBand: true,
    };
    const table = frameTable(frame, inside, "ruled");
    if (table) tables.push(table);
  }
  return tables;
}

/**
 * The text lines under a band, within its width: the first close under it, each next close under the one before,
 * none running across the band's width as prose does (one stretch of words over half of it).
 */
function rowsUnder(page: PageGeometry, band: Box, size: number): WordLine[] {
  const below = wordLines(
    runsIn(page.runs, { x1: band.x1, y1: band.y2, x2: band.x2, y2: band.y2 + 40 * size }),
  );
  const rows: WordLine[] = [];
  let last = band.y2;
  for (const line of below) {
    const height = line.y2 - line.y1;
    if (line.y1 - last > (rows.length === 0 ? 1.5 : ROW_GAP) * height) break;
    if (line.segments.some((s) => s.x2 - s.x1 > 0.5 * (band.x2 - band.x1))) break;
    // Text of the page beside the band's width on the same line: the line is no row of this table.
    const wide = runsIn(page.runs, { x1: 0, y1: line.y1, x2: page.width, y2: line.y2 });
    if (wide.some((r) => r.box.x2 < band.x1 || r.box.x1 > band.x2)) break;
    rows.push(line);
    last = line.y2;
  }
  return rows;
}
