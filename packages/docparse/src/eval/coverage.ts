/**
 * `npm run eval:coverage [-- --file name]`: nothing lost. Per PDF of the evaluation sets, the share of
 * pdftotext's words (a multiset) that our output holds, furniture included, with the words lost; then heading
 * F1 against the docling references' headings.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { latinHomoglyphs } from "../pdf/homoglyphs.ts";
import { DOCLING_DATA } from "../test-corpus.ts";
import { engineAllText, engineMarkdown, evalPdfs, foldText, pdftotext, plainWords } from "./pdf-sets.ts";

/**
 * Words pdftotext breaks with a hyphen at a line end. `joined`: a word it continues on the next line, which
 * `plainWords` joins (`appoint-/ments`), with its two parts: a compound's own hyphen (`FAA-/approved`) is read
 * as two words, and either reading counts. `heads`: the first part of a word whose continuation pdftotext puts
 * elsewhere (its reading order left the line), which our text may hold joined to its rest.
 */
export interface Hyphenation {
  joined: Map<string, [string, string]>;
  heads: Set<string>;
  /** Korean words anywhere in pdftotext's text: a table cell's line end may fall inside pdftotext's line. */
  korean?: Set<string>;
  /** Korean words pdftotext reads side by side on one line (`head tail`): two words, not a cell's line end. */
  together?: Set<string>;
}

/**
 * Compounds written with a hyphen in `text` (`FAA-approved`, or `FAA- approved` where a line break was): pdftotext
 * may print them joined without the hyphen (it removes a line-end hyphen itself), and either reading counts.
 */
export function compounds(text: string): Map<string, [string, string]> {
  const joined = new Map<string, [string, string]>();
  for (const match of text.matchAll(/([\p{L}\p{N}]+)-\s?([\p{L}\p{N}]+)/gu)) {
    const [head] = plainWords(match[1]);
    const [tail] = plainWords(match[2]);
    if (head && tail) joined.set(head + tail, [head, tail]);
  }
  return joined;
}

export function hyphenation(text: string): Hyphenation {
  const joined = new Map<string, [string, string]>();
  const heads = new Set<string>();
  for (const match of text.matchAll(/([\p{L}\p{N}]+)[-\u2010\u058A]\n\s*(\S?)([\p{L}\p{N}]*)/gu)) {
    const [head] = plainWords(match[1]);
    if (/^\p{Ll}/u.test(match[2])) {
      const [tail] = plainWords(match[2] + match[3]);
      joined.set(head + tail, [head, tail]);
    } else heads.add(head);
  }
  // A hyphen followed on pdftotext's line by right-to-left text (its U+202B embedding mark): pdftotext reads a
  // parallel page's rows across, the other column's line after the hyphen; the word goes on elsewhere.
  for (const match of text.matchAll(/([\p{L}\p{N}]+)[-\u2010][ \t]+[\u202a-\u202e]/gu)) {
    const [head] = plainWords(match[1]);
    if (head) heads.add(head);
  }
  // Korean breaks a line at any syllable, without a hyphen: pdftotext's last word of a line may be the head of a
  // word the next line goes on with, which ours reads joined where the document spells it (hangul-wrap.ts). In a
  // table pdftotext reads the columns across, a cell's line end falling inside its line before the next cell's
  // text, so any Korean word may be such a head, but for two words pdftotext reads side by side.
  for (const match of text.matchAll(/([\uAC00-\uD7A3]+)\n/gu)) heads.add(foldText(match[1]));
  const korean = new Set<string>();
  const together = new Set<string>();
  for (const match of text.matchAll(/[\uAC00-\uD7A3]+/gu)) korean.add(foldText(match[0]));
  for (const match of text.matchAll(/([\uAC00-\uD7A3]+)[ \t]+(?=([\uAC00-\uD7A3]+))/gu))
    together.add(`${foldText(match[1])} ${foldText(match[2])}`);
  return { joined, heads, korean, together };
}

/**
 * Multiset recall of `reference` in `ours`, and the reference words ours lacks (with how many are missing). With
 * the reference's hyphenation, a word broken at a line end counts as found in either reading: joined, or as
 * its two parts; a word the reference spells letter by letter, or one of `splits`, counts when ours holds it whole;
 * a Latin word the reference spells with a Cyrillic look-alike inside counts when ours holds it in Latin.
 */
export function wordRecall(
  reference: readonly string[],
  ours: readonly string[],
  hyphens: Hyphenation = { joined: new Map(), heads: new Set() },
  splits: ReadonlySet<string> = new Set(),
): { recall: number; lost: Map<string, number> } {
  const have = new Map<string, number>();
  for (const word of ours) have.set(word, (have.get(word) ?? 0) + 1);
  const lost = new Map<string, number>();
  let found = 0;
  const matched = reference.map((word) => {
    const left = have.get(word) ?? 0;
    if (left > 0) {
      have.set(word, left - 1);
      found++;
      return true;
    }
    lost.set(word, (lost.get(word) ?? 0) + 1);
    return false;
  });
  const take = (counts: Map<string, number>, word: string) => {
    const n = (counts.get(word) ?? 0) - 1;
    if (n > 0) counts.set(word, n);
    else counts.delete(word);
  };
  found += spacedApart(reference, matched, have, lost, splits, take);
  // A compound pdftotext joined at its line-end hyphen, which ours holds as its two words.
  for (const [word, [head, tail]] of hyphens.joined) {
    while (lost.has(word) && (have.get(head) ?? 0) > 0 && (have.get(tail) ?? 0) > (head === tail ? 1 : 0)) {
      take(lost, word);
      take(have, head);
      take(have, tail);
      found++;
    }
  }
  // A word whose halves pdftotext reads apart, which ours holds joined.
  for (const [word, count] of [...have]) {
    for (let i = 0; i < count; i++) {
      const head = [...hyphens.heads, ...(hyphens.korean ?? [])].find(
        (h) =>
          h.length < word.length &&
          word.startsWith(h) &&
          lost.has(h) &&
          lost.has(word.slice(h.length)) &&
          (hyphens.heads.has(h) || !hyphens.together?.has(`${h} ${word.slice(h.length)}`)),
      );
      if (!head) break;
      take(lost, head);
      take(lost, word.slice(head.length));
      take(have, word);
      found += 2;
    }
  }
  // A right-to-left word pdftotext reads backwards (a shaped word's text carried by one glyph, which it reverses
  // with the visual order), which ours holds in its letters' order.
  for (const [word, count] of [...lost]) {
    if (!RTL_LETTER.test(word)) continue;
    const backwards = [...word].reverse().join("");
    for (let i = 0; i < count && (have.get(backwards) ?? 0) > 0; i++) {
      take(lost, word);
      take(have, backwards);
      found++;
    }
  }
  // A Latin word pdftotext reads with a Cyrillic look-alike inside (`artіcle`, a T2A font's `і`), which ours
  // holds in Latin letters.
  for (const [word, count] of [...lost]) {
    const latin = latinHomoglyphs(word);
    for (let i = 0; i < count && latin !== word && (have.get(latin) ?? 0) > 0; i++) {
      take(lost, word);
      take(have, latin);
      found++;
    }
  }
  // A word pdftotext reads with a ligature short (`deinition`, `he`) or without it (`utuantes`, from a font that
  // draws the ligature at a control code: cork-ligatures.ts), which ours holds whole. Without it only from three
  // letters left: a lost `t` is no trace of our `fit`.
  for (const [word, count] of [...lost]) {
    for (let i = 0; i < count; i++) {
      const whole = [...have.keys()].find(
        (w) =>
          w.length > word.length &&
          (ligatureShort(w) === ligatureShort(word) ||
            (word.length >= 3 && w.replace(/ff[il]|f[il]|ff/g, "") === word)),
      );
      if (!whole) break;
      take(lost, word);
      take(have, whole);
      found++;
    }
  }
  return { recall: reference.length === 0 ? 1 : found / reference.length, lost };
}

/** The longest run of pdftotext's words read as one word of ours: a word spelled letter by letter. */
const MAX_SPACED = 24;

/**
 * Words pdftotext's `text` shows with a capital letter apart from the rest (`L AMPORT`, `E XPENSES` in small
 * capitals, a drop cap's `J ustement`), folded and joined. Either reading counts; the capital is the sign, since
 * a lowercase letter apart is as often a word of its own (`a`, `y`, `w`).
 */
export function capitalSplits(text: string): Set<string> {
  const joined = new Set<string>();
  for (const match of text.matchAll(/(?<![\p{L}\p{N}])(\p{Lu}) (\p{L}{2,})(?![\p{L}\p{N}])/gu)) {
    const [word] = plainWords(match[1] + match[2]);
    if (word) joined.add(word);
  }
  return joined;
}

/**
 * Words pdftotext reads apart that ours holds whole, counted as found: a word whose letters it reads spaced, three
 * or more (`l e t t e r`, `C O N S`: tracked type, a scan's own OCR layer; the last two may stand together, a
 * kerned pair: `T U E S D AY`), or one of `splits` (`capitalSplits`).
 * The run holds a word lost in the plain count; its letters that had matched elsewhere give their match back, to
 * be counted again against what is still lost. Returns how many more of `reference`'s words are found. Two words
 * of ours for one of pdftotext's stay a loss: that is a word we split.
 */
function spacedApart(
  reference: readonly string[],
  matched: boolean[],
  have: Map<string, number>,
  lost: Map<string, number>,
  splits: ReadonlySet<string>,
  take: (counts: Map<string, number>, word: string) => void,
): number {
  const letter = (word: string) => /^\p{L}$/u.test(word);
  const released: string[] = [];
  let found = 0;
  for (let i = 0; i < reference.length; i++) {
    if (!letter(reference[i])) continue;
    let letters = i + 1;
    while (letters < reference.length && letters - i < MAX_SPACED && letter(reference[letters])) letters++;
    const runs: number[] = [];
    if (letters < reference.length && splits.has(reference[i] + reference[i + 1])) runs.push(i + 2);
    // A kerned pair drawn closer than the tracking ends the word as two letters (`T U E S D AY`).
    if (letters - i >= 2 && /^\p{L}{2}$/u.test(reference[letters] ?? "")) runs.push(letters + 1);
    for (let last = letters; last >= i + 3; last--) runs.push(last);
    const last = runs.find((end) => {
      const word = reference.slice(i, end).join("");
      return (have.get(word) ?? 0) > 0 && !matched.slice(i, end).every(Boolean);
    });
    if (last === undefined) continue;
    take(have, reference.slice(i, last).join(""));
    for (let at = i; at < last; at++) {
      if (matched[at]) released.push(reference[at]);
      else {
        take(lost, reference[at]);
        found++;
      }
      matched[at] = true;
    }
    i = last - 1;
  }
  for (const word of released) {
    if (lost.has(word)) {
      take(lost, word);
      found++;
    } else have.set(word, (have.get(word) ?? 0) + 1);
  }
  return found;
}

/** A letter of a right-to-left script (Hebrew, Arabic and their presentation forms). */
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;

/**
 * A word with each ligature's letters as pdftotext reads them from a font whose ToUnicode maps the ligature to
 * its last letter (`definition` → `deinition`, `the` → `he`, `affect` → `afect`); glyph-names.ts reads them whole.
 */
export function ligatureShort(word: string): string {
  return word.replace(/ff[il]|f[il]|ff|th/g, (lig) => lig.slice(-1));
}

/**
 * A word with each stretch of lams and alefs in one order. pdftotext reverses the lam-alef ligature's two
 * letters in right-to-left text (`اإلنتاجية` for `الإنتاجية`, as pdf.js does unless told the glyphs): their order
 * in its text says nothing, so words are matched without it.
 */
export function lamAlefFolded(word: string): string {
  return word.replace(/[\u0644\u0622\u0623\u0625\u0627]{2,}/gu, (run) => [...run].sort().join(""));
}

/** Characters of scripts written without spaces between words (Chinese, Japanese kana and ideographs). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303f\uff00-\uffef]/u;

/**
 * A word of Chinese or Japanese as its characters, one "word" each: there are no spaces to tell its words by, and
 * pdftotext cuts a run wherever a line wraps while a reader joins it, so a run's cut says nothing either. Counted
 * per character, a wrapped line joined (or not) loses nothing; other scripts' words stay whole.
 */
export function unspacedSplit(word: string): string[] {
  if (!UNSPACED.test(word)) return [word];
  return word.split(
    /(?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])|(?<=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/u,
  );
}

/** `word` with each of a-z moved back `k` places in the alphabet (other characters as they are). */
function unshifted(word: string, k: number): string {
  return word.replace(/[a-z]/g, (c) => String.fromCharCode(((c.charCodeAt(0) - 97 - k + 26) % 26) + 97));
}

/**
 * The lost words that are pdftotext's reading of a font whose codes are its letters shifted (`wkh` for `the`,
 * `gdwdedvh` for `database`: a subset font coded by glyph order, which pdftotext prints code by code while we
 * read the glyphs, by their names or by OCR). Only when one shift turns five distinct lost words of three
 * letters or more into words of ours is the document taken to hold such a font; then every lost word that
 * shift turns into a word of ours is that font's and not counted.
 */
export function shiftedFontWords(
  lost: ReadonlyMap<string, number>,
  ours: ReadonlySet<string>,
): Map<string, number> {
  let best = { k: 0, votes: 0 };
  for (let k = 1; k < 26; k++) {
    let votes = 0;
    for (const word of lost.keys()) if (/^[a-z]{3,}$/.test(word) && ours.has(unshifted(word, k))) votes++;
    if (votes > best.votes) best = { k, votes };
  }
  const shifted = new Map<string, number>();
  if (best.votes < 5) return shifted;
  for (const [word, n] of lost)
    if (/[a-z]/.test(word) && ours.has(unshifted(word, best.k))) shifted.set(word, n);
  return shifted;
}

/** The headings of a markdown text (`#` lines), folded. */
export function headings(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) =>
      foldText(line.replace(/^#+ /, ""))
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim(),
    )
    .filter((text) => text.length > 0);
}

/** Matches of two heading lists as multisets: true positives, and the sizes of each. */
export function headingMatches(reference: readonly string[], ours: readonly string[]): number {
  // A heading is its words: where its section number stands is layout (the docling references put a number
  // set in a box of its own after the title, `들어가며 1` for `1 들어가며`).
  const words = (heading: string) => heading.split(" ").sort().join(" ");
  const left = ours.map(words);
  let matched = 0;
  for (const heading of reference) {
    const at = left.indexOf(words(heading));
    if (at >= 0) {
      left.splice(at, 1);
      matched++;
    }
  }
  return matched;
}

const fmt = (value: number) => value.toFixed(3);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { file: { type: "string" } } });
  const pdfs = evalPdfs().filter((pdf) => !values.file || pdf.id.includes(values.file));
  console.log(`${"pdf".padEnd(48)} words  recall  lost (pdftotext's words we lack)`);
  let below = 0;
  let scored = 0;
  for (const pdf of pdfs) {
    const text = pdftotext(pdf.path);
    if (text === null) throw new Error("pdftotext is not installed (Debian: poppler-utils)");
    const reference = plainWords(text).map(lamAlefFolded).flatMap(unspacedSplit);
    if (reference.length === 0) {
      console.log(`${pdf.id.padEnd(48)} ${"0".padStart(5)}       -  (no text layer)`);
      continue;
    }
    let ours: string[];
    const hyphens = hyphenation(text);
    try {
      const ourText = await engineAllText(pdf.path);
      for (const [word, parts] of compounds(ourText)) hyphens.joined.set(word, parts);
      ours = plainWords(ourText).map(lamAlefFolded).flatMap(unspacedSplit);
    } catch (error) {
      console.log(`${pdf.id.padEnd(48)} failed: ${error instanceof Error ? error.message : error}`);
      below++;
      continue;
    }
    const scoredWords = wordRecall(reference, ours, hyphens, capitalSplits(text));
    // pdftotext's garbage from a font coded with shifted letters is left out of its words.
    const shifted = shiftedFontWords(scoredWords.lost, new Set(ours));
    const garbage = [...shifted.values()].reduce((a, b) => a + b, 0);
    for (const word of shifted.keys()) scoredWords.lost.delete(word);
    const { lost } = scoredWords;
    const recall =
      reference.length === garbage
        ? 1
        : (scoredWords.recall * reference.length) / (reference.length - garbage);
    scored++;
    if (recall < 0.99) below++;
    const worst = [...lost]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([word, n]) => (n > 1 ? `${word}×${n}` : word))
      .join(" ");
    const note = garbage > 0 ? ` (${garbage} words of a shifted font not counted)` : "";
    console.log(
      `${pdf.id.padEnd(48)} ${String(reference.length).padStart(5)}  ${fmt(recall)}  ${worst}${note}`,
    );
  }
  console.log(`\n${scored} PDFs scored, ${below} below 0.99 recall of pdftotext's words`);

  // Heading F1 against the docling references (their `#` lines), micro-averaged over the files.
  if (!DOCLING_DATA) return;
  let tp = 0;
  let nRef = 0;
  let nOurs = 0;
  console.log(`\n${"docling reference".padEnd(48)} ref  ours  match`);
  for (const pdf of pdfs.filter((p) => p.id.startsWith("docling/"))) {
    const stem = path.basename(pdf.path, ".pdf");
    const refFile = path.join(DOCLING_DATA, "pdf/groundtruth", `${stem}.md`);
    if (!existsSync(refFile)) continue;
    const reference = headings(readFileSync(refFile, "utf8"));
    const ours = headings(await engineMarkdown(pdf.path));
    const matched = headingMatches(reference, ours);
    tp += matched;
    nRef += reference.length;
    nOurs += ours.length;
    console.log(
      `${pdf.id.padEnd(48)} ${String(reference.length).padStart(3)}  ${String(ours.length).padStart(4)}  ${String(matched).padStart(5)}`,
    );
  }
  const precision = nOurs === 0 ? 0 : tp / nOurs;
  const recall = nRef === 0 ? 0 : tp / nRef;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  console.log(`heading precision ${fmt(precision)}  recall ${fmt(recall)}  F1 ${fmt(f1)}`);
}

if (import.meta.main) await main();
