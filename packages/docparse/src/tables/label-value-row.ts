/**
 * A ruled row of field boxes: one ruled band split by vertical rules into cells, each holding a small label
 * over its value ("Exporting carrier" over "FedEx"), as forms, waybills and invoices set their shipment or
 * reference fields. Such a band is a table of two rows, the labels over the values, so each value keeps its
 * label above it and its neighbours beside it. Cards side by side (a title over a paragraph) are not: their
 * upper line is the larger one, not the smaller.
 */
import { box, type TextRun } from "../paginated/geometry.ts";
import { wordLines } from "./aligned.ts";
import type { Frame } from "./ruled-frame.ts";

/** A label's font at most this share of its value's: a small caption over the entry, not a heading. */
const LABEL_SIZE = 0.9;

/** The most lines a value holds: a field's entry, not a paragraph. */
const MAX_VALUE_LINES = 2;

/**
 * The height between the labels and the values of a one-band ruled frame whose every cell holds smaller label
 * lines over larger value lines, all labels above all values; null when the band is not such a row of fields.
 */
export function labelValueCut(frame: Frame, runs: readonly TextRun[]): number | null {
  const cols = frame.xs.length - 1;
  if (frame.ys.length !== 2 || cols < 2 || frame.xRules.some((r) => r === null)) return null;
  let labelsEnd = Number.NEGATIVE_INFINITY;
  let valuesStart = Number.POSITIVE_INFINITY;
  for (let c = 0; c < cols; c++) {
    const inCell = runs.filter((r) => {
      const cx = box.centerX(r.box);
      return cx > frame.xs[c] && cx < frame.xs[c + 1];
    });
    const lines = wordLines(inCell);
    if (lines.length < 2) return null;
    const valueSize = Math.max(...lines.map((l) => l.fontSize));
    const labels = lines.filter((l) => l.fontSize <= LABEL_SIZE * valueSize);
    const values = lines.filter((l) => l.fontSize > LABEL_SIZE * valueSize);
    if (labels.length === 0 || values.length > MAX_VALUE_LINES) return null;
    labelsEnd = Math.max(labelsEnd, ...labels.map((l) => l.y2));
    valuesStart = Math.min(valuesStart, ...values.map((l) => l.y1));
  }
  return labelsEnd < valuesStart ? (labelsEnd + valuesStart) / 2 : null;
}

/**
 * The frame with its one band cut in two at `cut`: the labels' row over the values' row, parted as if a
 * hairline ran between them from side to side (the cells' own boxes part them on the page).
 */
export function splitLabelRow(frame: Frame, cut: number): Frame {
  const parting = { pos: cut, a: frame.xs[0], b: frame.xs[frame.xs.length - 1], width: 0 };
  return {
    ...frame,
    ys: [frame.ys[0], cut, frame.ys[1]],
    yRules: [frame.yRules[0], [parting], frame.yRules[1]],
    headerBand: true,
  };
}
