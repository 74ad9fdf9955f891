import type { Block } from "./blocks.ts";
import type { BlockLabel } from "./labels.ts";

/**
 * Whether `block` holds only words OCR read from a picture on a page that has a text layer (a logo's lettering, a
 * banner's slogan): the words a picture shows, not the page's typed text.
 */
export function imageWordsBlock(block: Block, textSource: string): boolean {
  return (
    textSource === "text-layer" &&
    block.lines.every((line) => line.runs.every((run) => run.fontName === "ocr"))
  );
}

const isHeading = (label: BlockLabel) => label.label === "title" || label.label === "section_header";

/**
 * Words read from a picture are no heading on a page whose text layer has one: a logo's lettering (a bank's name
 * at the foot of its rate sheet, read `ConmonwealthBark`) is set large because it is a picture, not because it
 * heads what follows, and the page's typed headings say how it is divided. A page whose only heading-like text is
 * in a picture (a scanned banner over typed text) keeps it. `labels` are the page's blocks' labels; returns the
 * blocks to read as text.
 */
export function imageHeadings(labels: ReadonlyMap<Block, BlockLabel>, textSource: string): Block[] {
  const fromImage = (block: Block) => imageWordsBlock(block, textSource);
  const typed = [...labels].some(([block, label]) => isHeading(label) && !fromImage(block));
  if (!typed) return [];
  return [...labels].filter(([block, label]) => isHeading(label) && fromImage(block)).map(([block]) => block);
}
