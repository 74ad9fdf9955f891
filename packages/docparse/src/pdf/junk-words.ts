import { wellFormed } from "../ocr/layer-words.ts";

/**
 * Words OCR makes of a logo's artwork. A crop of text outside the text layer may hold a logo whose letters are
 * drawn in a script face or woven into a picture (`Prince Edward Island` over a coastline), and OCR then reads
 * junk from it: `2@`, `[sland`, `Pri`, which, set as large as a logo is, came out as headings. Real words in such
 * crops (a banner's title, a logo's name in plain capitals) are read with confidence or are shaped like words.
 * What gives junk away, without a dictionary:
 * - a word read with little confidence whose signs are misplaced: no letter but signs beside its digits (`2@`; a date, a figure or a colour code, `10-31-17`, `4.5%`, `#046899`, is none),
 *   a bracket glued to a plain word that its line does not partner (`[sland`), a digit between letters;
 * - a fragment: a short word (three letters or fewer) alone on its line, read with middling confidence, in a
 *   paragraph of OCR's that holds such junk or a word read with no confidence and not shaped as a word (`Pri`
 *   over `ViNC`): a piece of the same artwork.
 */

/** An OCR word as a crop's reading gives it: `lineId` is `block.paragraph.line`. */
interface CropWord {
  text: string;
  confidence: number;
  lineId: string;
}

/** Below this confidence a word with misplaced signs is junk. */
const MISPLACED_BELOW = 0.8;
/** Words read below this confidence are left out anyway (unread-text.ts `withOcrWords`). */
const UNREAD_BELOW = 0.5;
/** A fragment beside junk: this many letters or fewer, read below this confidence. */
const FRAGMENT = { letters: 3, confidence: 0.9 };

const BRACKETS = ["()", "[]", "{}"];

/** A bracket opening or closing a plain word (`[sland`) whose partner is not on its line (`line`: its words). */
function strayBracket(word: string, line: string): boolean {
  return BRACKETS.some(([open, close]) => {
    const glued = new RegExp(`^\\${open}\\p{L}+$|^\\p{L}+\\${close}$`, "u").test(word);
    const count = (s: string, c: string) => s.split(c).length - 1;
    return glued && count(line, open) !== count(line, close);
  });
}

/** Signs where no word has them: only signs beside digits, a stray bracket, a digit between letters. */
function misplacedSigns(word: string, line: string): boolean {
  if (!/\p{L}/u.test(word)) return /\d/.test(word) && !/^[(+−–#-]?[\d.,/:%–-]+\)?$/u.test(word);
  return strayBracket(word, line) || /\p{L}\d+\p{L}/u.test(word);
}

/** The crop's words without those read from a logo's artwork (see above). */
export function withoutJunkWords<T extends CropWord>(words: readonly T[]): T[] {
  const lines = new Map<string, T[]>();
  for (const w of words) lines.set(w.lineId, [...(lines.get(w.lineId) ?? []), w]);
  const lineText = (w: CropWord) => (lines.get(w.lineId) ?? []).map((o) => o.text).join(" ");
  const paragraph = (w: CropWord) => w.lineId.split(".").slice(0, 2).join(".");
  const letters = (w: CropWord) => w.text.match(/\p{L}/gu)?.length ?? 0;
  const junk = new Set(
    words.filter((w) => w.confidence < MISPLACED_BELOW && misplacedSigns(w.text, lineText(w))),
  );
  const spoilt = new Set(
    words
      .filter(
        (w) =>
          (junk.has(w) && letters(w) > 0) ||
          (w.confidence < UNREAD_BELOW && letters(w) >= 2 && !wellFormed(w.text)),
      )
      .map(paragraph),
  );
  const fragment = (w: CropWord) =>
    spoilt.has(paragraph(w)) &&
    lines.get(w.lineId)?.length === 1 &&
    letters(w) <= FRAGMENT.letters &&
    w.confidence < FRAGMENT.confidence;
  return words.filter((w) => !junk.has(w) && !fragment(w));
}
