import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { matchBlocks, readingOrderScore } from "./reading-order.ts";

const blocks = (...texts: string[]) => texts.map((text) => ({ text }));

const PARAGRAPHS = [
  "Document layout analysis finds the regions of a page.",
  "Tables are scored by the tree edit distance of their structure.",
  "Reading order decides how the text of columns is joined.",
  "Each figure keeps its caption beside it in the output.",
];

describe("reading order", () => {
  test("matches blocks by text similarity, one to one, despite small differences", () => {
    const predicted = blocks(
      "Reading order decides how the text of colunms is joined",
      "unrelated noise that matches nothing here at all",
      "Document layout analysis finds the regions of a page.",
    );
    assert.deepEqual(matchBlocks(blocks(...PARAGRAPHS), predicted), [2, -1, 0]);
    // Each reference block is taken once, by its best match.
    assert.deepEqual(matchBlocks(blocks(PARAGRAPHS[0]), blocks(PARAGRAPHS[0], PARAGRAPHS[0])), [0, -1]);
  });

  test("scores the order of matched blocks by edit distance, ignoring missing and extra blocks", () => {
    const reference = blocks(...PARAGRAPHS);
    assert.deepEqual(readingOrderScore(reference, reference), {
      score: 1,
      pairwise: 1,
      matched: 4,
      referenceBlocks: 4,
      predictedBlocks: 4,
    });
    // Two blocks swapped: 2 substitutions over 4 matched blocks; 5 of 6 pairs in order.
    const swapped = blocks(PARAGRAPHS[0], PARAGRAPHS[2], PARAGRAPHS[1], PARAGRAPHS[3]);
    const result = readingOrderScore(reference, swapped);
    assert.equal(result.score, 1 - 2 / 4);
    assert.equal(result.pairwise, 5 / 6);
    // Fully reversed.
    assert.equal(readingOrderScore(reference, [...reference].reverse()).pairwise, 0);
    // A missing block and an extra one leave a correct order intact.
    const partial = readingOrderScore(
      reference,
      blocks(PARAGRAPHS[0], "an extra line of text", PARAGRAPHS[3]),
    );
    assert.equal(partial.score, 1);
    assert.equal(partial.matched, 2);
    assert.equal(readingOrderScore(reference, blocks("nothing alike")).score, null);
  });

  test("matches only blocks on the same page when both know their page", () => {
    const reference = [
      { text: PARAGRAPHS[0], page: 1 },
      { text: PARAGRAPHS[1], page: 2 },
    ];
    const predicted = [
      { text: PARAGRAPHS[1], page: 1 },
      { text: PARAGRAPHS[0], page: 1 },
    ];
    assert.deepEqual(matchBlocks(reference, predicted), [-1, 0]);
    assert.deepEqual(matchBlocks(reference, blocks(PARAGRAPHS[1], PARAGRAPHS[0])), [1, 0]);
  });
});
