/**
 * Words OCR makes of a logo's artwork. A crop of text outside the text layer may hold a logo whose letters are
 * drawn in a script face or woven into a picture (`Prince Edward Island` over a coastline), and OCR then reads
 * junk from it: `2@`, `[sland`, `Pri`, which set large as a logo is came out as headings. Real words in such
 * crops (a banner's title, a logo's name in plain capitals) are read with confidence and are shaped like words.
 * What gives junk away, without a dictionary:
 * - a word read with little confidence that is misshapen: no letter but signs (`2@`), a bracket its line does not
 *   close or open (`[sland`), a digit between letters (`Educaci6n`);
 * - a short word (three letters or fewer) read with middling confidence in a paragraph of OCR's where another
 *   word with letters is junk (`Pri` over `ViNC`): a fragment of the same artwork.
 */

/** An OCR word as a crop's reading gives it: `lineId` is `block.paragraph.line`. */
interface CropWord {
  text: string;
  confidence: number;
  lineId: string;
}

/** Below this confidence a misshapen word is junk. */
const MISSHAPEN_BELOW = 0.8;
/** Words read below this confidence are left out anyway (unread-text.ts `withOcrWords`): junk already. */
const UNREAD_BELOW = 0.5;
/** A fragment beside junk: this many letters or fewer, read below this confidence. */
const FRAGMENT = { letters: 3, confidence: 0.9 };

const OPENING = "([{";
const CLOSING = ")]}";

/** A bracket in `word` whose partner is not on its line (`line`, the line's words joined). */
function unbalanced(word: string, line: string): boolean {
  for (let i = 0; i < OPENING.length; i++) {
    const opens = (s: string) => s.split(OPENING[i]).length - 1;
    const closes = (s: string) => s.split(CLOSING[i]).length - 1;
    if ((opens(word) > 0 || closes(word) > 0) && opens(line) !== closes(line)) return true;
  }
  return false;
}

/** A word shaped as no word is: no letter but signs beside its digits, an unpartnered bracket, a digit in letters. */
function misshapen(word: string, line: string): boolean {
  if (!/\p{L}/u.test(word)) return !/^[(\-+−–]?[\d.,/:%]+[)]?$/u.test(word) && /\d/.test(word);
  return unbalanced(word, line) || /\p{L}\d+\p{L}/u.test(word);
}

/** The crop's words without those read from a logo's artwork (see above). */
export function withoutJunkWords<T extends CropWord>(words: readonly T[]): T[] {
  const lines = new Map<string, string>();
  for (const w of words) lines.set(w.lineId, `${lines.get(w.lineId) ?? ""} ${w.text}`);
  const paragraph = (w: CropWord) => w.lineId.split(".").slice(0, 2).join(".");
  const letters = (w: CropWord) => w.text.match(/\p{L}/gu)?.length ?? 0;
  const junk = new Set(
    words.filter(
      (w) =>
        (w.confidence < UNREAD_BELOW && letters(w) >= 2) ||
        (w.confidence < MISSHAPEN_BELOW && misshapen(w.text, lines.get(w.lineId) ?? w.text)),
    ),
  );
  const spoilt = new Set([...junk].filter((w) => letters(w) > 0).map(paragraph));
  return words.filter(
    (w) =>
      !junk.has(w) &&
      !(spoilt.has(paragraph(w)) && letters(w) <= FRAGMENT.letters && w.confidence < FRAGMENT.confidence),
  );
}
