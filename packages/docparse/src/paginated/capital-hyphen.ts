/**
 * A line that ends in a word and a hyphen, before a line that opens with a capital (`Trace-` + `Monkey`,
 * `Anglo-` + `Saxon`): the two are one word. The hyphen is the word's own (`Anglo-Saxon`), kept and joined
 * without a space, unless the document spells the joined word elsewhere without it (`TraceMonkey`): then the
 * line end broke a name and added the hyphen.
 */
export function joinAtCapital(before: string, after: string, spelled: ReadonlySet<string>): string {
  const head = /[\p{L}\p{N}]+(?=[-\u2010]$)/u.exec(before)?.[0] ?? "";
  const tail = /^[\p{L}\p{N}]+/u.exec(after)?.[0] ?? "";
  return spelled.has(`${head}${tail}`.toLowerCase()) ? before.slice(0, -1) + after : before + after;
}

/** Whether `before` ends in a word and a hyphen and `after` opens with a capital letter. */
export function brokenAtCapital(before: string, after: string): boolean {
  return /\p{L}[-\u2010]$/u.test(before) && /^\p{Lu}/u.test(after);
}

/** The words a document spells, lower-cased: its lines' runs of letters and digits. */
export function spelledWords(lines: Iterable<string>): Set<string> {
  const words = new Set<string>();
  for (const line of lines)
    for (const word of line.match(/[\p{L}\p{N}]+/gu) ?? []) words.add(word.toLowerCase());
  return words;
}
