/**
 * A hyphen at a line's end inside a hyphenated compound is the compound's own: `year-over-` + `year` reads
 * `year-over-year`, `year-` + `over-year` too. A word already joined by a hyphen on either side of the break was
 * written with its hyphens; only a plain word broken in two (`ver-` + `sion`) loses the hyphen the line end added.
 */
export function compoundHyphen(before: string, after: string): boolean {
  const head = /[\p{L}\p{N}]+(?:[-\u2010][\p{L}\p{N}]+)*[-\u2010]$/u.exec(before)?.[0] ?? "";
  const tail = /^[\p{L}\p{N}]+(?:[-\u2010][\p{L}\p{N}]+)*/u.exec(after)?.[0] ?? "";
  return /[-\u2010]/u.test(head.slice(0, -1)) || /[-\u2010]/u.test(tail);
}
