/**
 * Letters and marks that reach below the baseline (`g`, `p`, `y`, a comma, brackets): a line's box spans its type
 * size only when it holds one of them.
 */
const DESCENDING = /[gjpqyQJ,;()[\]{}|@$§µçşţ_]/u;

/** How much of the type size a line without descenders measures, ascender to baseline, in common faces. */
const UNDESCENDED_SHARE = 0.8;

/**
 * A line's type size from the height of its box as OCR measured it. The box of a line of lowercase text with no
 * descending letter (`Helvetica`, `Results`) stops at the baseline, a fifth short of the size its neighbours are
 * measured at: it is scaled up, or a title line with no `g` or `y` reads as set smaller than the body beside it.
 * A line of capitals and figures alone (`14/09/16 20:42`, `IV`) is left as measured: the stamps, folios and
 * labels set that way are compared by their height as before.
 */
export function lineTypeSize(heightPx: number, text: string): number {
  return DESCENDING.test(text) || !/\p{Ll}/u.test(text) ? heightPx : heightPx / UNDESCENDED_SHARE;
}
