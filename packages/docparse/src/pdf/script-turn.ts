import type { WorkerEdit } from "./worker-edit.ts";

/**
 * pdf.js joins glyphs on one baseline into one text item while the gaps between them stay under about half an em,
 * putting a space in each gap, and then reorders the whole item as one bidirectional paragraph. Where a line of a
 * left-to-right column ends close before a line of a right-to-left one (a parallel edition's Russian beside its
 * Hebrew, a line run a little long into the gutter), the two become one item: the Hebrew read first, the Russian
 * after it, and one box across the gutter, which closes it for the whole page. A gap where the text turns from a
 * left-to-right letter to a right-to-left one (or back) ends the item instead, as a wide gap does: each script's
 * words are an item of their own, in their own order, and the line builder joins items that stand close.
 */
const SCRIPT_TURN = `
var svcNextChar = "";
const SVC_RTL_LETTER = /[\\u0590-\\u08FF\\uFB1D-\\uFDFF\\uFE70-\\uFEFF]/u;
const SVC_LETTER = /\\p{L}/u;
function svcScriptTurns() {
  const next = svcNextChar;
  if (!next || !SVC_LETTER.test(next)) return false;
  const chunks = textContentItem.str;
  for (let i = chunks.length - 1; i >= 0; i--) {
    const chunk = chunks[i];
    for (let k = chunk.length - 1; k >= 0; k--) {
      const ch = chunk[k];
      if (SVC_LETTER.test(ch)) return SVC_RTL_LETTER.test(ch) !== SVC_RTL_LETTER.test(next);
    }
  }
  return false;
}
`;

export const SCRIPT_TURN_EDITS: readonly WorkerEdit[] = [
  {
    why: "the helper that tells whether the glyph after a gap turns from a left-to-right letter to a right-to-left one or back (the last letter of the item against the next glyph)",
    find: "    function addFakeSpaces(width, transf, textOrientation) {\n",
    replace: `${SCRIPT_TURN}    function addFakeSpaces(width, transf, textOrientation) {\n`,
  },
  {
    why: "the glyph about to be placed is noted, so that a gap before it can be judged by its script",
    find: "        if (!category.isZeroWidthDiacritic && !compareWithLastPosition(scaledDim)) {",
    replace:
      "        svcNextChar = glyph.unicode;\n        if (!category.isZeroWidthDiacritic && !compareWithLastPosition(scaledDim)) {",
  },
  {
    why: "a gap in the flow of a line where the script turns direction ends the item, as a wider gap does, so that bidi does not reorder two columns' words as one paragraph",
    find: "      if (textOrientation * textContentItem.spaceInFlowMin <= width && width <= textOrientation * textContentItem.spaceInFlowMax) {",
    replace:
      "      if (textOrientation * textContentItem.spaceInFlowMin <= width && width <= textOrientation * textContentItem.spaceInFlowMax && !svcScriptTurns()) {",
  },
];
