/** Characters of Chinese and Japanese text (ideographs, kana, full-width forms): lines wrap without spaces. */
export const UNSPACED_CHAR = /[\u3000-\u9FFF\uFF00-\uFFEF]/;

/**
 * Whether a line ending in `before` and the line `after` it meet in Chinese or Japanese text, which wraps anywhere,
 * inside a word, and is written without spaces: the two lines join without one.
 */
export function meetsUnspaced(before: string, after: string): boolean {
  return UNSPACED_CHAR.test(before.slice(-1)) && UNSPACED_CHAR.test(after.charAt(0));
}
