import type { Box } from "../model.ts";
import type { Block } from "./blocks.ts";

/** A page entry as layout gives them: a block of text, or a table, figure... */
type Entry = { kind: string; box: Box; block?: Block };

/** A caption's opening: `Figure 2.`, `Fig. 3:`, `Table 1`, `Listing 4`, `Algorithm 1`. */
const CAPTION = /^(?:fig(?:ure)?|table|listing|algorithm|chart|exhibit)\.?\s*\d/i;

/** How many entries a column's top may hold before a paragraph's continuation: a labelled diagram has many. */
const MOST_FLOATS = 80;

/**
 * The floats set at the head of the next column, between a paragraph broken at a column's foot and the rest of
 * it: figures, tables, and blocks that are captions or stand over one (a listing, a diagram's labels), all right of
 * the broken paragraph's column (`columnRight`). Returns the index of the paragraph's continuation, the first
 * entry after them that `continues` accepts, or -1 when something else comes first (body text, a heading, a
 * block back in the first column) or no caption says the run is a float.
 */
export function pastFloats(
  entries: readonly Entry[],
  from: number,
  columnRight: number,
  continues: (entry: Entry) => boolean,
): number {
  const captions: Box[] = [];
  for (let k = from; k < entries.length && k <= from + MOST_FLOATS; k++) {
    const entry = entries[k];
    if (entry.box.x1 < columnRight - 2) return -1;
    const head = entry.kind === "block" ? entry.block?.lines[0]?.text.trim() : undefined;
    if (head !== undefined && k > from && captions.length > 0 && continues(entry)) {
      // Everything passed over stands above a caption: a float's content over its caption, then the caption.
      const skipped = entries.slice(from, k);
      const floats = skipped.every(
        (e) =>
          e.kind !== "block" ||
          (captions.some((c) => e.box.y2 <= c.y2 + 1 && e.box.y1 <= c.y1 + 1) && !prose(e, entry)),
      );
      return floats && skipped.every((e) => e.box.y2 <= entry.box.y1 + 1) ? k : -1;
    }
    if (head !== undefined && CAPTION.test(head)) captions.push(entry.box);
  }
  return -1;
}

/**
 * A paragraph of the body between the floats: several lines in the continuation's own type (a caption aside).
 * A listing's lines are set in another face, a diagram's labels smaller.
 */
function prose(entry: Entry, continuation: Entry): boolean {
  const lines = entry.block?.lines ?? [];
  const head = continuation.block?.lines[0];
  if (lines.length < 2 || head === undefined || CAPTION.test(lines[0].text.trim())) return false;
  return (
    Math.abs(lines[0].fontSize - head.fontSize) <= 0.5 &&
    lines[0].runs[0]?.fontName === head.runs[0]?.fontName
  );
}
