/**
 * Letter-spaced words read whole. A heading tracked wide (`E I N S C H R E I B E N`), by the character spacing
 * operator (`Tc`) or by a `TJ` array's numbers between its glyphs, leaves a gap between every two letters; pdf.js
 * reads a gap from a tenth to six tenths of an em between two glyphs of one item as a space, so the word came out
 * one letter a word. Lowering that threshold by the character spacing is no answer: producers also use `Tc` and
 * `TJ` to place glyphs (a table's next cell reached by a glyph's tracking, maths set apart), and those gaps are
 * word and cell gaps however they were made.
 *
 * What tells tracking apart is the gaps themselves, as pdftotext reads them: a letter-spaced word has the same gap
 * between every two of its letters, and its word spaces are clearly wider than that gap. The worker edits below
 * note, for each space pdf.js puts into an item for a gap between glyphs, where in the item's text it stands, how
 * wide the gap is (in ems) and whether a space glyph was drawn in it. `joinTrackedLetters` then reads each chain
 * of single letters in an item, each two a noted gap apart: where the chain has at least MIN_LETTERS letters, its
 * gaps without a space glyph fall into a uniform letter gap and word gaps clearly wider, and the letter gap is
 * narrower than the item's word spaces beside longer words, the letter gaps are no spaces.
 *
 * A chain may hold single digits (a tracked address's house number, `1 4`) and pairs of letters that a kerning pair
 * drew closer than the tracking (`D AY`); only its single letters count towards MIN_LETTERS.
 *
 * Not joined: letters with a space glyph between them (the producer's own word space: a list's `a b c`), digits
 * outside a chain of letters, signs and letters of scripts without case (CJK, Thai, Arabic: their spacing means
 * something else), chains of fewer than MIN_LETTERS letters, and any chain with a gap neither a letter gap nor
 * clearly a word gap (cells of a table, maths set apart). A word tracked so wide that pdf.js made an item of each
 * letter is not read here.
 */

import { median } from "../statistics.ts";
import type { WorkerEdit } from "./worker-edit.ts";

/** A gap pdf.js read as a space inside an item: where the space is in the item's text, its width in ems, and whether a space glyph was drawn in it. */
export type ItemGap = [offset: number, ems: number, spaceGlyph: boolean];

/** The gaps noted while an item is built (array positions in its `str` chunks) turned into offsets in its text. */
const GAP_OFFSETS = `
function svcGapOffsets(chunks, gaps) {
  const starts = [];
  let at = 0;
  for (const chunk of chunks) {
    starts.push(at);
    at += chunk.length;
  }
  return gaps.filter(gap => chunks[gap[0]] === " ").map(gap => [starts[gap[0]], gap[1], gap[2]]);
}
`;

export const LETTER_SPACING_EDITS: readonly WorkerEdit[] = [
  {
    why: "a helper that turns the gaps noted in an item's chunks into offsets in its text",
    find: "    function flushTextContentItem() {\n",
    replace: `${GAP_OFFSETS}    function flushTextContentItem() {\n`,
  },
  {
    why: "a space put into an item for a gap between glyphs is noted: where it stands, its width in ems, and whether a space glyph was drawn in it (the last character seen was a space)",
    find: `        if (textContentItem.initialized) {
          resetLastChars();
          textContentItem.str.push(" ");`,
    replace: `        if (textContentItem.initialized) {
          if (textState.fontSize) {
            (textContentItem.svcGaps ||= []).push([textContentItem.str.length, Math.abs(width / textState.fontSize), twoLastChars[(twoLastCharsPos + 1) % 2] === " "]);
          }
          resetLastChars();
          textContentItem.str.push(" ");`,
  },
  {
    why: "an item's noted gaps go with it, when its text is as built (left to right, not normalized)",
    find: `      textContent.items.push(runBidiTransform(textContentItem));
      textContentItem.initialized = false;`,
    replace: `      const svcItem = runBidiTransform(textContentItem);
      if (textContentItem.svcGaps) {
        if (disableNormalization && svcItem.dir === "ltr" && svcItem.str === textContentItem.str.join("")) {
          svcItem.svcGaps = svcGapOffsets(textContentItem.str, textContentItem.svcGaps);
        }
        textContentItem.svcGaps = null;
      }
      textContent.items.push(svcItem);
      textContentItem.initialized = false;`,
  },
];

/** A chain needs this many letters before its gaps are evidence of tracking. */
const MIN_LETTERS = 4;
/** Ems: gaps this close to the chain's usual gap are letter gaps (tracking is uniform; pair kerning moves a gap a little). */
const LETTER_GAP_TOLERANCE = 0.05;
/** Ems: a word gap is at least this much wider than the letter gap (a word space on top of the tracking). */
const WORD_GAP_EXTRA = 0.12;
/** The letter gap must be under this share of the item's word spaces beside longer words. */
const UNDER_WORD_SPACE = 0.75;

/** A letter of a cased script (Latin, Greek, Cyrillic): scripts whose words are set apart by spaces. */
const CASED_LETTER = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]$/u;
/** Two letters of a cased script. */
const CASED_PAIR = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]{2}$/u;

/** `text` (an item's) without the spaces of letter-spaced words (see above); `gaps` are the item's noted gaps. */
export function joinTrackedLetters(text: string, gaps: readonly ItemGap[]): string {
  // A chain is joined only on MIN_LETTERS - 1 gaps without a space glyph: an item with fewer has nothing to join.
  let drawnFreeGaps = 0;
  for (const gap of gaps) if (!gap[2]) drawnFreeGaps++;
  if (drawnFreeGaps < MIN_LETTERS - 1) return text;
  // Code units, as the offsets count them.
  const chars = text.split("");
  const byOffset = new Map(gaps.map((gap) => [gap[0], gap]));
  // Chains: members each two with a noted gap between them. A member is a single letter, a single digit (a tracked
  // address's `1 4`: counted in no chain's letters) or two letters a kerned pair drew closer than the tracking
  // (`D AY`: kerning took `A` and `Y` under pdf.js's space).
  const chains: { letters: number[]; gaps: ItemGap[] }[] = [];
  let chain: { letters: number[]; gaps: ItemGap[]; end: number } | null = null;
  for (let i = 0; i < chars.length; ) {
    let end = i;
    while (end < chars.length && chars[end] !== " ") end++;
    const token = chars.slice(i, end).join("");
    const member = CASED_LETTER.test(token) || /^\p{Nd}$/u.test(token) || CASED_PAIR.test(token);
    if (member) {
      const gap = byOffset.get(i - 1);
      if (!(chain && gap && chain.end === i - 1)) {
        chain = { letters: [], gaps: [], end };
        chains.push(chain);
      } else chain.gaps.push(gap);
      chain.end = end;
      if (CASED_LETTER.test(token)) chain.letters.push(i);
    } else chain = null;
    i = end + 1;
  }
  // The item's other spaces: those beside a word of two characters or more, a digit or a sign. Where single letters
  // are as far apart as the words around them (a TeX line's `options a b c d and e`), their gaps are word spaces.
  const inChain = new Set(chains.flatMap((c) => c.gaps.map((gap) => gap[0])));
  const wordSpaces = gaps.filter((gap) => !inChain.has(gap[0])).map((gap) => gap[1]);
  const narrowestWordSpace = wordSpaces.length > 0 ? Math.min(...wordSpaces) : Infinity;
  const joined = new Set<number>();
  for (const { letters, gaps: chainGaps } of chains) {
    if (letters.length < MIN_LETTERS) continue;
    const drawnFree = chainGaps.filter((gap) => !gap[2]).map((gap) => gap[1]);
    if (drawnFree.length < MIN_LETTERS - 1) continue;
    const letterGap = median(drawnFree);
    if (letterGap >= narrowestWordSpace * UNDER_WORD_SPACE) continue;
    const isLetterGap = (gap: ItemGap) => !gap[2] && Math.abs(gap[1] - letterGap) <= LETTER_GAP_TOLERANCE;
    const isWordGap = (gap: ItemGap) => gap[2] || gap[1] >= letterGap + WORD_GAP_EXTRA;
    if (!chainGaps.every((gap) => isLetterGap(gap) || isWordGap(gap))) continue;
    if (chainGaps.filter(isLetterGap).length < MIN_LETTERS - 1) continue;
    for (const gap of chainGaps) if (isLetterGap(gap)) joined.add(gap[0]);
  }
  if (joined.size === 0) return text;
  return chars.filter((_, i) => !joined.has(i)).join("");
}
