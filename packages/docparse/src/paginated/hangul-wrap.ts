/**
 * Korean lines wrap inside a word as often as between two: word processors (HWP, Word for Korean) break a
 * justified line at any syllable by default. A line ending in a Hangul syllable before one opening with a Hangul
 * syllable joins without a space when the document spells, elsewhere, a word going on past the break: one that
 * starts with the line's last word and the next line's first syllable (`대표` + `성을`, the document spelling
 * `대표성이`; `같` + `이`, spelling `같이`), or when the next line opens with a particle standing alone or a verb's
 * formal ending (below).
 * Without that evidence the break stays a space (`각` + `호에`).
 */

/**
 * A line opening with a particle or ending standing alone, one syllable before a space or a mark: these are never
 * a word by themselves, so the line end broke the word they close (`기준` + `을 정립함`, `금융감독당국` + `의 책임`).
 * Particles that are also words (`이` "this", `가`, `도`, `만`, `다`, `고`) are not evidence.
 */
const LONE_PARTICLE = /^[을를는의에로며](?![\uAC00-\uD7A3])/u;

/**
 * The formal verb ending (`-습니다`, `-ㅂ니다` after a vowel: `했습니다`, `됩니다`), which no word starts with: a
 * line opening with it goes on with the word the line before ended on (`마감했` + `습니다`).
 */
const FORMAL_ENDING = /^(?:습니|니다)/u;

/** A Hangul syllable (precomposed). */
const SYLLABLE = /^[\uAC00-\uD7A3]$/u;

/**
 * Whether a line ending in `before` and the line `after` it may be one Korean word broken at the line end: a
 * Hangul syllable on both sides of the break. Only the evidence of {@link wrapsInWord} tells whether they are.
 */
export function hangulMeet(before: string, after: string): boolean {
  return SYLLABLE.test(before.slice(-1)) && SYLLABLE.test(after.charAt(0));
}

/** The starts (two syllables or more) of the Hangul words of a document's vocabulary, per vocabulary. */
const startsCache = new WeakMap<ReadonlySet<string>, Set<string>>();

function wordStarts(spelled: ReadonlySet<string>): Set<string> {
  let starts = startsCache.get(spelled);
  if (starts) return starts;
  starts = new Set();
  // The Hangul runs of each word: `sk하이닉스` spells `하이닉스`.
  for (const word of spelled)
    for (const run of word.match(/[\uAC00-\uD7A3]{2,}/gu) ?? [])
      for (let n = 2; n <= run.length; n++) starts.add(run.slice(0, n));
  startsCache.set(spelled, starts);
  return starts;
}

/** Whether a line ending in `before` and the line `after` it are one Korean word broken at the line end. */
export function wrapsInWord(before: string, after: string, spelled: ReadonlySet<string>): boolean {
  if (!hangulMeet(before, after)) return false;
  const first = after.charAt(0);
  if (LONE_PARTICLE.test(after) || FORMAL_ENDING.test(after)) return true;
  if (spelled.size === 0) return false;
  const head = /[\uAC00-\uD7A3]+$/u.exec(before)?.[0] ?? "";
  return wordStarts(spelled).has(head + first);
}

/**
 * A table cell's text with its Korean words broken at a line end joined again, on the same evidence as a block's
 * lines: `breaks` are the places of the spaces that stand for the cell's line breaks (cells.ts `cellTextBreaks`).
 */
export function joinHangulBreaks(
  text: string,
  breaks: readonly number[],
  spelled: ReadonlySet<string>,
): string {
  let out = text;
  for (const at of [...breaks].sort((a, b) => b - a))
    if (out.charAt(at) === " " && wrapsInWord(out.slice(0, at), out.slice(at + 1), spelled))
      out = out.slice(0, at) + out.slice(at + 1);
  return out;
}
