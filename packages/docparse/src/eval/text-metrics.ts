import { codeUnits, indelDistance, levenshtein, tokenIds } from "../text/edit-distance.ts";
import { decodeEntities } from "./html-entities.ts";
import { wordTokens } from "./word-tokens.ts";

/** Every run of whitespace as one space, none at the ends: layout differences are not text differences. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

/** A GFM table's delimiter row, e.g. `|---|:--:|` or `| --- | --- |`. */
const TABLE_DELIMITER_ROW = /^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$/gm;

/**
 * Markdown reduced to what two exporters of the same document should agree on, applied alike to reference and
 * prediction before `textNid`: HTML comments dropped (Docling writes `<!-- image -->` where a figure is and
 * `<!-- missing-text -->` where it read none: placeholders, not text); character references decoded and
 * backslash escapes of ASCII punctuation removed (`&amp;`, `\_`: two spellings of one character); each table
 * delimiter row written as `|---|` per column (its dash count is padding); whitespace normalized.
 *
 * @example
 * markdownForComparison("a\\_b &amp; c\n\n<!-- image -->\n"); // "a_b & c"
 */
export function markdownForComparison(markdown: string): string {
  const text = markdown
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(TABLE_DELIMITER_ROW, (row) => `${"|---".repeat((row.match(/-+/g) ?? []).length)}|`)
    .replace(/\\([!-/:-@[-`{-~])/g, "$1");
  return normalizeWhitespace(decodeEntities(text));
}

/**
 * Normalized indel similarity of two texts after whitespace normalization, over UTF-16 code units:
 *
 *   NID = 1 − indel(ref, pred) / (len(ref) + len(pred))
 *
 * where indel is the fewest insertions and deletions turning one text into the other
 * (= len(ref) + len(pred) − 2·LCS). 1 means equal texts, 0 texts with no character in common; a substitution
 * counts as a deletion plus an insertion, which is what keeps the score within [0, 1] under this normalization
 * (with Levenshtein's unit substitutions, two unrelated texts of equal length would still score 0.5).
 * Two empty texts score 1.
 *
 * @example
 * textNid("The cat sat.", "The  cat sat"); // 1 − 1/23
 */
export function textNid(reference: string, prediction: string): number {
  const ref = codeUnits(normalizeWhitespace(reference));
  const pred = codeUnits(normalizeWhitespace(prediction));
  const total = ref.length + pred.length;
  return total === 0 ? 1 : 1 - indelDistance(ref, pred) / total;
}

/**
 * Levenshtein distance of the whitespace-normalized texts over the longer one's length, in [0, 1]: 0 for equal
 * texts. Two empty texts are at distance 0.
 *
 * @example
 * normalizedEditDistance("kitten", "sitting"); // 3/7
 */
export function normalizedEditDistance(reference: string, prediction: string): number {
  const ref = codeUnits(normalizeWhitespace(reference));
  const pred = codeUnits(normalizeWhitespace(prediction));
  const longest = Math.max(ref.length, pred.length);
  return longest === 0 ? 0 : levenshtein(ref, pred) / longest;
}

/** Token-level scores of a prediction against a reference, both cut into words as NLTK's `word_tokenize`. */
export interface TokenScores {
  /** Levenshtein distance of the token sequences over the longer one's length: 0 for equal, 1 for disjoint. */
  editDistance: number;
  /** Share of the prediction's distinct tokens found in the reference; null when the prediction has none. */
  precision: number | null;
  /** Share of the reference's distinct tokens found in the prediction; null when the reference has none. */
  recall: number | null;
  /** Harmonic mean of precision and recall; 0 when either is 0, null when either is null. */
  f1: number | null;
}

/**
 * Token-level scores as the docling-metrics text vectors define them: edit distance over the token sequences,
 * precision, recall and F1 over the sets of distinct tokens.
 *
 * @example
 * tokenScores("The cat sat.", "The cat sat down.").recall; // 1
 */
export function tokenScores(reference: string, prediction: string): TokenScores {
  const refTokens = wordTokens(reference);
  const predTokens = wordTokens(prediction);
  const ids = tokenIds();
  const longest = Math.max(refTokens.length, predTokens.length);
  const editDistance = longest === 0 ? 0 : levenshtein(ids(refTokens), ids(predTokens)) / longest;
  const refSet = new Set(refTokens);
  const predSet = new Set(predTokens);
  let common = 0;
  for (const token of predSet) if (refSet.has(token)) common++;
  const precision = predSet.size === 0 ? null : common / predSet.size;
  const recall = refSet.size === 0 ? null : common / refSet.size;
  const f1 =
    precision === null || recall === null
      ? null
      : precision === 0 || recall === 0
        ? 0
        : (2 * precision * recall) / (precision + recall);
  return { editDistance, precision, recall, f1 };
}
