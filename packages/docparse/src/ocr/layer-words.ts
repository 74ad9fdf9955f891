import type { Box } from "../model.ts";
import { box, type TextRun } from "../paginated/geometry.ts";
import { codePoints, levenshtein } from "../text/edit-distance.ts";

/**
 * A scan's own invisible text layer (an earlier OCR, drawn under the image) as a second, independent reading of
 * the page. The page is read by our OCR; where one of our words and a word of the layer lie in the same place and
 * differ only slightly, the two engines disagree on a letter or a stop, and the layer's spelling is taken when the
 * page itself vouches for it: it is a word both readings agree on elsewhere on the page and ours is not, or ours
 * was read with low confidence and the layer's is a well-formed word. A layer that spells words letter by letter,
 * or is garbage, agrees with too few of our words to be trusted, and nothing of it is taken.
 */

/** A word of the layer: a run's text cut at its spaces, each piece given its share of the run's width. */
interface LayerWord {
  text: string;
  box: Box;
}

/** Of our words that have a layer word in their place, at least this share must read the same for the layer to count. */
const MIN_AGREEMENT = 0.6;
/** At least this many of our words must have a layer word in their place. */
const MIN_PAIRED = 20;
/** Our words read with less confidence than this yield to a well-formed layer word. */
const LOW_CONFIDENCE = 0.8;
/** A layer word is "close" to ours within this many edits, and at most a third of the longer word. */
const MAX_EDITS = 2;

export interface LayerMergeStats {
  /** Our words with exactly one layer word in their place. */
  paired: number;
  /** Of those, how many read the same. */
  agreed: number;
  /** Words where the layer's spelling was taken. */
  taken: { ours: string; layer: string; confidence: number; reason: "vocabulary" | "confidence" }[];
  /** Close disagreements left as we read them. */
  kept: { ours: string; layer: string; confidence: number }[];
  /** False when the layer agreed with too few of our words to be used. */
  trusted: boolean;
}

/**
 * Our OCR runs with words of the invisible layer taken where the rule above says so, and what was decided.
 * `layer` and `ours` are in the same frame (the page's points, upright as the layer is).
 */
export function withLayerWords(
  ours: readonly TextRun[],
  layer: readonly TextRun[],
): { runs: TextRun[]; stats: LayerMergeStats } {
  const stats: LayerMergeStats = { paired: 0, agreed: 0, taken: [], kept: [], trusted: false };
  const words = layerWords(layer);
  if (words.length === 0) return { runs: [...ours], stats };
  const partners = ours.map((run) => (run.vertical ? null : partnerOf(run, words)));
  // Words both readings agree on: the page's own vocabulary.
  const vocabulary = new Map<string, number>();
  partners.forEach((partner, i) => {
    if (partner === null) return;
    stats.paired++;
    if (partner.text === ours[i].text) {
      stats.agreed++;
      vocabulary.set(partner.text, (vocabulary.get(partner.text) ?? 0) + 1);
    }
  });
  stats.trusted = stats.paired >= MIN_PAIRED && stats.agreed >= stats.paired * MIN_AGREEMENT;
  if (!stats.trusted) return { runs: [...ours], stats };
  const runs = ours.map((run, i) => {
    const partner = partners[i];
    if (partner === null || partner.text === run.text || !close(run.text, partner.text)) return run;
    // Layers drop line-end hyphens and closing marks, and their case is often wrong (`Small` for `small`): a
    // difference only there is no evidence against our reading, which saw the whole line.
    if (core(partner.text).toLowerCase() === core(run.text).toLowerCase()) return run;
    const record = { ours: run.text, layer: partner.text, confidence: run.confidence };
    const reason =
      (vocabulary.get(partner.text) ?? 0) > 0 && !vocabulary.has(run.text)
        ? "vocabulary"
        : run.confidence < LOW_CONFIDENCE && wellFormed(partner.text) && !wellFormed(run.text)
          ? "confidence"
          : null;
    if (reason === null) {
      stats.kept.push(record);
      return run;
    }
    stats.taken.push({ ...record, reason });
    return { ...run, text: partner.text };
  });
  return { runs, stats };
}

/** The layer's runs cut into words, each with its share of the run's box by characters. */
function layerWords(layer: readonly TextRun[]): LayerWord[] {
  const words: LayerWord[] = [];
  for (const run of layer) {
    if (run.vertical) continue;
    const chars = [...run.text];
    if (chars.length === 0) continue;
    const step = (run.box.x2 - run.box.x1) / chars.length;
    let start = -1;
    for (let i = 0; i <= chars.length; i++) {
      const space = i === chars.length || /\s/u.test(chars[i]);
      if (!space && start < 0) start = i;
      if (space && start >= 0) {
        words.push({
          text: chars.slice(start, i).join(""),
          box: { x1: run.box.x1 + start * step, y1: run.box.y1, x2: run.box.x1 + i * step, y2: run.box.y2 },
        });
        start = -1;
      }
    }
  }
  return words;
}

/**
 * The one layer word in our word's place: its middle inside our word's box and the two overlapping over half of
 * the smaller one's height. Null when there is none, or more than one (a layer that cuts the word in pieces).
 */
function partnerOf(run: TextRun, words: readonly LayerWord[]): LayerWord | null {
  let found: LayerWord | null = null;
  for (const word of words) {
    const mx = (word.box.x1 + word.box.x2) / 2;
    if (mx < run.box.x1 || mx > run.box.x2) continue;
    const overlap = box.overlapY(run.box, word.box);
    const height = Math.min(run.box.y2 - run.box.y1, word.box.y2 - word.box.y1);
    if (overlap < height * 0.5) continue;
    if (found) return null;
    found = word;
  }
  // A layer word much wider than ours holds more than our word (two words run together).
  if (found && found.box.x2 - found.box.x1 > (run.box.x2 - run.box.x1) * 1.8) return null;
  return found;
}

/** Two spellings of one word: a few edits apart, and not more than a third of the longer. */
function close(a: string, b: string): boolean {
  const edits = levenshtein(codePoints(a), codePoints(b));
  return edits <= MAX_EDITS && edits * 3 <= Math.max([...a].length, [...b].length);
}

/**
 * A word shaped like one of a language: letters in one case pattern (lower, Capitalised or CAPITALS, or initials
 * with stops), or a number, with at most an opening and closing punctuation mark; not letters mixed with digits or
 * symbols, which is what misreadings look like.
 */
export function wellFormed(text: string): boolean {
  const inner = core(text);
  if (inner === "") return false;
  if (/^\d+([.,/-]\d+)*%?$/u.test(inner)) return true;
  if (/^(\p{Lu}\.)+\p{Lu}?$/u.test(inner)) return true;
  return /^(\p{Ll}+|\p{Lu}\p{Ll}*|\p{Lu}+)(['’-]\p{L}+)*$/u.test(inner);
}

/** A word without its opening and closing punctuation (a hyphen at its end too). */
function core(text: string): string {
  return text.replace(/^[("'“‘[]+/u, "").replace(/[)"'”’\].,;:!?\-‐]+$/u, "");
}
