import type { Box } from "../model.ts";

/** Characters of Chinese and Japanese text (ideographs, kana, full-width forms): lines wrap without spaces. */
export const UNSPACED_CHAR = /[\u3000-\u9FFF\uFF00-\uFFEF]/;

/**
 * Whether a line ending in `before` and the line `after` it meet in Chinese or Japanese text, which wraps anywhere,
 * inside a word, and is written without spaces: the two lines join without one.
 */
export function meetsUnspaced(before: string, after: string): boolean {
  return UNSPACED_CHAR.test(before.slice(-1)) && UNSPACED_CHAR.test(after.charAt(0));
}

/** Chinese and Japanese punctuation that ends a sentence or a clause before a list. */
const UNSPACED_STOP = /[。．！？；：]$/;

/**
 * Whether the line `last` wraps into `next` in Chinese or Japanese text: the two meet unspaced, `last` ends
 * mid-sentence (no full stop, question mark, semicolon or colon) and reaches at least as far right as `next`, as a
 * line filled to its column does. A numbered item set so (`1. 答题前…并将准考证` + `号条形码…`) goes on in its next
 * line though that line returns to the margin, left of the item's number: the sign a Latin item gives by running
 * on in lower case.
 */
export function wrapsUnspaced(last: { text: string; box: Box }, next: { text: string; box: Box }): boolean {
  const size = last.box.y2 - last.box.y1;
  return (
    meetsUnspaced(last.text, next.text) &&
    !UNSPACED_STOP.test(last.text) &&
    last.box.x2 >= next.box.x2 - size * 0.5
  );
}
