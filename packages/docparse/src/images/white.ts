/**
 * Blank paper read four pixels at a time. Scans and rendered pages are mostly paper of level 255; the loops that
 * look at every pixel of a page (text height, raster rules) pass over such pixels a 32-bit word at a time.
 */

/** Four gray pixels of level 255. */
export const WHITE_WORD = 0xffffffff;

/**
 * A grayscale image as 32-bit words: word `i >> 2` holds pixels `i` to `i + 3` when `i` is a multiple of 4. The
 * image is copied when its bytes do not start on a 4-byte boundary; the bytes past the last whole word are left
 * out, so callers read the last pixels one by one.
 */
export function whiteWords(gray: Uint8Array): { gray: Uint8Array; words: Uint32Array } {
  const aligned = gray.byteOffset % 4 === 0 ? gray : new Uint8Array(gray);
  return { gray: aligned, words: new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length >> 2) };
}
