import type { WorkerEdit } from "./worker-edit.ts";

/**
 * Soft hyphens that are drawn. A font may map its hyphen glyph to U+00AD (a browser printing a page to PDF maps
 * the hyphen of `deck-container` so), and pdf.js leaves every soft hyphen out of the text as an invisible format
 * mark, even one whose glyph has a width and shows. Such a glyph is kept in the text here; `softHyphensRead` then
 * reads one between two word parts as the hyphen it shows, and one ending a run as the hyphen at a line break (the
 * blocks stage joins the word across the break as it does any hyphenated word). A soft hyphen with no width (a
 * hyphenation point the producer marked but did not draw) is still left out by pdf.js.
 */
export const SOFT_HYPHEN_EDITS: readonly WorkerEdit[] = [
  {
    why: "a soft hyphen whose glyph has a width is drawn: it is read as text (softHyphensRead) instead of skipped as an invisible format mark",
    find: `        if (category.isInvisibleFormatMark) {
          continue;
        }`,
    replace: `        if (category.isInvisibleFormatMark && !(glyph.unicode === "\\u00AD" && glyph.width > 0)) {
          continue;
        }`,
  },
];

/**
 * A run's text with its soft hyphens read: one ending the run is the hyphen shown at a line break, one between
 * two characters that are not spaces is a hyphen drawn mid-word; any other (beside a space) shows nothing.
 */
export function softHyphensRead(text: string): string {
  if (!text.includes("\u00AD")) return text;
  return text
    .replace(/\u00AD(?=\s*$)/, "-")
    .replace(/(?<=\S)\u00AD(?=\S)/g, "-")
    .replace(/\u00AD/g, "");
}
