import { codeUnits, indelDistance, levenshtein } from "../text/edit-distance.ts";
import { normalizeWhitespace } from "./text-metrics.ts";

/**
 * Unrelated paragraphs of English reach a character NID of about 0.4, rarely 0.5: a match needs clearly more.
 */
export const DEFAULT_MATCH_THRESHOLD = 0.6;

export interface ReadingOrderResult {
  /** 1 − Levenshtein(predicted order, reference order) / matched; null when no block matched. */
  score: number | null;
  /** Share of the pairs of matched blocks that the prediction puts in the reference's order; null below 2. */
  pairwise: number | null;
  /** Blocks matched one to one. */
  matched: number;
  referenceBlocks: number;
  predictedBlocks: number;
}

/** A block of text in reading order; when both blocks of a pair know their page, only blocks on the same page match. */
export interface ReadingBlock {
  text: string;
  page?: number;
}

interface Candidate {
  ref: number;
  pred: number;
  similarity: number;
}

/**
 * Pairs each predicted block with at most one reference block: all pairs whose text similarity (NID of the
 * whitespace-normalized texts, see `textNid`) reaches the threshold, best first, each block taken once. Ties go
 * to the earlier reference, then predicted block.
 * Returns the reference index matched by each predicted block, or -1.
 */
export function matchBlocks(
  reference: readonly ReadingBlock[],
  prediction: readonly ReadingBlock[],
  threshold = DEFAULT_MATCH_THRESHOLD,
): number[] {
  const refs = reference.map((block) => codeUnits(normalizeWhitespace(block.text)));
  const preds = prediction.map((block) => codeUnits(normalizeWhitespace(block.text)));
  const candidates: Candidate[] = [];
  for (let ref = 0; ref < refs.length; ref++) {
    const a = refs[ref].length;
    if (a === 0) continue;
    const refPage = reference[ref].page;
    for (let pred = 0; pred < preds.length; pred++) {
      const predPage = prediction[pred].page;
      if (refPage !== undefined && predPage !== undefined && refPage !== predPage) continue;
      const b = preds[pred].length;
      // NID ≤ 2·min(a, b)/(a + b): pairs of very different lengths cannot reach the threshold.
      if (b === 0 || (2 * Math.min(a, b)) / (a + b) < threshold) continue;
      const similarity = 1 - indelDistance(refs[ref], preds[pred]) / (a + b);
      if (similarity >= threshold) candidates.push({ ref, pred, similarity });
    }
  }
  candidates.sort((x, y) => y.similarity - x.similarity || x.ref - y.ref || x.pred - y.pred);
  const refTaken = new Set<number>();
  const matchOf = prediction.map(() => -1);
  for (const { ref, pred } of candidates) {
    if (refTaken.has(ref) || matchOf[pred] !== -1) continue;
    refTaken.add(ref);
    matchOf[pred] = ref;
  }
  return matchOf;
}

/**
 * How well a prediction keeps the reference's reading order. Blocks (paragraphs, headings, list items...) are
 * matched by text (see `matchBlocks`); the reference indices of the matched blocks, read in predicted order, are
 * compared with the same indices in ascending order:
 *
 *   score = 1 − Levenshtein(predicted sequence, sorted sequence) / matched
 *
 * Missing or extra blocks do not count here (text NID measures them); only the order of what was found does.
 *
 * @example
 * const blocks = (...texts: string[]) => texts.map((text) => ({ text }));
 * readingOrderScore(blocks("Title", "First part", "Second part"), blocks("Title", "Second part", "First part")).score;
 * // 1 − 2/3
 */
export function readingOrderScore(
  reference: readonly ReadingBlock[],
  prediction: readonly ReadingBlock[],
  threshold = DEFAULT_MATCH_THRESHOLD,
): ReadingOrderResult {
  const order = matchBlocks(reference, prediction, threshold).filter((ref) => ref !== -1);
  const matched = order.length;
  const sorted = Int32Array.from(order).sort();
  let concordant = 0;
  for (let i = 0; i < matched; i++)
    for (let j = i + 1; j < matched; j++) if (order[i] < order[j]) concordant++;
  const pairs = (matched * (matched - 1)) / 2;
  return {
    score: matched === 0 ? null : 1 - levenshtein(order, sorted) / matched,
    pairwise: pairs === 0 ? null : concordant / pairs,
    matched,
    referenceBlocks: reference.length,
    predictedBlocks: prediction.length,
  };
}
