/**
 * Edit distances between sequences of symbols (UTF-16 code units, code points, or token ids), computed
 * bit-parallel: the shorter sequence is packed into 32-bit words and the longer one is scanned once, so the cost
 * is O(⌈m/32⌉·n) word operations and O(m) memory instead of an m×n matrix. A common prefix and suffix are cut
 * first, which is most of the work saved when two texts mostly agree.
 */

/** A sequence of symbols compared by value. */
export type Symbols = ArrayLike<number>;

/** The UTF-16 code units of a string. */
export function codeUnits(text: string): Uint16Array {
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}

/** The code points of a string (a character outside the BMP is one symbol, as Python counts it). */
export function codePoints(text: string): Uint32Array {
  const points: number[] = [];
  for (const char of text) points.push(char.codePointAt(0) ?? 0);
  return Uint32Array.from(points);
}

/** Gives each distinct token a number, the same number for equal tokens across every list passed to one mapper. */
export function tokenIds(): (tokens: readonly string[]) => Int32Array {
  const ids = new Map<string, number>();
  return (tokens) => {
    const out = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) {
      let id = ids.get(tokens[i]);
      if (id === undefined) {
        id = ids.size;
        ids.set(tokens[i], id);
      }
      out[i] = id;
    }
    return out;
  };
}

/**
 * The two sequences without their common prefix and suffix (`common` symbols in all); `pattern` is the shorter
 * of the two.
 */
function trimmed(
  a: Symbols,
  b: Symbols,
): { pattern: Symbols; text: Symbols; m: number; n: number; common: number } {
  let start = 0;
  let endA = a.length;
  let endB = b.length;
  while (start < endA && start < endB && a[start] === b[start]) start++;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const sliceA = { length: endA - start, offset: start, source: a };
  const sliceB = { length: endB - start, offset: start, source: b };
  const [short, long] = sliceA.length <= sliceB.length ? [sliceA, sliceB] : [sliceB, sliceA];
  const view = (s: typeof sliceA): Symbols =>
    s.offset === 0 && s.length === s.source.length
      ? s.source
      : Array.prototype.slice.call(s.source, s.offset, s.offset + s.length);
  return {
    pattern: view(short),
    text: view(long),
    m: short.length,
    n: long.length,
    common: start + (a.length - endA),
  };
}

/**
 * The match masks of the pattern: for each distinct symbol, `blocks` words with bit i of word w set where
 * pattern[32w + i] is that symbol. Returns the flat mask array and each symbol's offset into it.
 */
function matchMasks(
  pattern: Symbols,
  m: number,
  blocks: number,
): { masks: Int32Array; offsets: Map<number, number> } {
  const offsets = new Map<number, number>();
  for (let i = 0; i < m; i++) if (!offsets.has(pattern[i])) offsets.set(pattern[i], offsets.size * blocks);
  const masks = new Int32Array(offsets.size * blocks);
  for (let i = 0; i < m; i++) masks[(offsets.get(pattern[i]) ?? 0) + (i >>> 5)] |= 1 << (i & 31);
  return { masks, offsets };
}

/**
 * Levenshtein distance (insertions, deletions and substitutions each cost 1), by Myers' bit-vector algorithm in
 * Hyyrö's formulation for a whole-sequence alignment, with blocks of 32 rows chained by their horizontal deltas.
 *
 * @example
 * levenshtein(codeUnits("kitten"), codeUnits("sitting")); // 3
 */
export function levenshtein(a: Symbols, b: Symbols): number {
  const { pattern, text, m, n } = trimmed(a, b);
  if (m === 0) return n;
  const blocks = (m + 31) >>> 5;
  const { masks, offsets } = matchMasks(pattern, m, blocks);
  // Vertical deltas of each block's column: +1 where pv is set, −1 where mv is set, else 0.
  const pv = new Int32Array(blocks).fill(-1);
  const mv = new Int32Array(blocks);
  const lastRow = 1 << ((m - 1) & 31);
  let score = m;
  for (let j = 0; j < n; j++) {
    const offset = offsets.get(text[j]);
    // Row 0 of the matrix is 0, 1, 2, ...: the delta entering the first block is +1.
    let carry = 1;
    for (let w = 0; w < blocks; w++) {
      let eq = offset === undefined ? 0 : masks[offset + w];
      const p = pv[w];
      const mm = mv[w];
      const xv = eq | mm;
      if (carry < 0) eq |= 1;
      const xh = ((((eq & p) + p) | 0) ^ p) | eq;
      let ph = mm | ~(xh | p);
      let mh = p & xh;
      const top = w === blocks - 1 ? lastRow : -0x80000000;
      const out = (ph & top) !== 0 ? 1 : (mh & top) !== 0 ? -1 : 0;
      ph <<= 1;
      mh <<= 1;
      if (carry < 0) mh |= 1;
      else if (carry > 0) ph |= 1;
      pv[w] = mh | ~(xv | ph);
      mv[w] = ph & xv;
      carry = out;
    }
    score += carry;
  }
  return score;
}

/**
 * Length of the longest common subsequence, by the bit-parallel algorithm of Allison–Dix / Crochemore et al.:
 * V ← (V + (V & M[c])) | (V & ~M[c]), the additions carried from word to word; the answer is the number of zero
 * bits of V.
 *
 * @example
 * longestCommonSubsequence(codeUnits("abcbdab"), codeUnits("bdcaba")); // 4
 */
export function longestCommonSubsequence(a: Symbols, b: Symbols): number {
  const { pattern, text, m, n, common } = trimmed(a, b);
  if (m === 0) return common;
  const blocks = (m + 31) >>> 5;
  const { masks, offsets } = matchMasks(pattern, m, blocks);
  const v = new Int32Array(blocks).fill(-1);
  for (let j = 0; j < n; j++) {
    const offset = offsets.get(text[j]);
    if (offset === undefined) continue;
    let carry = 0;
    for (let w = 0; w < blocks; w++) {
      const word = v[w];
      const match = masks[offset + w];
      const sum = (word >>> 0) + ((word & match) >>> 0) + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      v[w] = sum | 0 | (word & ~match);
    }
  }
  let zeros = 0;
  for (let w = 0; w < blocks; w++) zeros += 32 - popcount(v[w]);
  return common + zeros;
}

function popcount(word: number): number {
  let x = word - ((word >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/**
 * Indel distance: the fewest insertions and deletions (no substitutions) that turn one sequence into the other,
 * len(a) + len(b) − 2·LCS(a, b). It lies between 0 and len(a) + len(b).
 *
 * @example
 * indelDistance(codeUnits("kitten"), codeUnits("sitting")); // 5
 */
export function indelDistance(a: Symbols, b: Symbols): number {
  return a.length + b.length - 2 * longestCommonSubsequence(a, b);
}
