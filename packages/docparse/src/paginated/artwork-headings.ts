import type { Block } from "./blocks.ts";
import type { PageGeometry } from "./geometry.ts";
import type { BlockLabel } from "./labels.ts";

/** Below this mean confidence OCR has misread a block's words: lettering drawn as artwork, not type. */
const MISREAD = 0.85;

/**
 * Whether `block` holds only words OCR read on a page that has a text layer (from a picture, or from glyphs the
 * layer does not hold), and read them poorly: its mean confidence, letter by letter, under `MISREAD` (a bank's
 * logo read `ConmonwealthBark` at 0.78). A title drawn as outlines reads cleanly (0.9 and over).
 */
export function misreadArtwork(block: Block, page: Pick<PageGeometry, "textSource">): boolean {
  if (page.textSource !== "text-layer") return false;
  const runs = block.lines.flatMap((line) => line.runs);
  if (runs.length === 0 || runs.some((run) => run.fontName !== "ocr")) return false;
  const letters = runs.reduce((n, run) => n + run.text.length, 0);
  const confidence =
    runs.reduce((sum, run) => sum + run.confidence * run.text.length, 0) / Math.max(1, letters);
  return confidence < MISREAD;
}

const isHeading = (label: BlockLabel) => label.label === "title" || label.label === "section_header";

/**
 * Words OCR misread from artwork are no heading on a page whose own text has one: a logo's lettering (a bank's
 * name at the foot of its rate sheet) is set large because it is a picture, not because it heads what follows,
 * and the headings of the page's text layer say how it is divided. A page whose only heading is such a reading keeps it.
 * `labels` are the page's blocks' labels; returns the blocks to read as text.
 */
export function artworkHeadings(
  labels: ReadonlyMap<Block, BlockLabel>,
  page: Pick<PageGeometry, "textSource">,
): Block[] {
  const artwork = (block: Block) => misreadArtwork(block, page);
  const typed = [...labels].some(
    ([block, label]) =>
      isHeading(label) && block.lines.some((line) => line.runs.some((run) => run.fontName !== "ocr")),
  );
  if (!typed) return [];
  return [...labels].filter(([block, label]) => isHeading(label) && artwork(block)).map(([block]) => block);
}
