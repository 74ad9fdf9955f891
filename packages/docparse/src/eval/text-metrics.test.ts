import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import {
  markdownForComparison,
  normalizedEditDistance,
  normalizeWhitespace,
  textNid,
  tokenScores,
} from "./text-metrics.ts";
import { sentences, wordTokens } from "./word-tokens.ts";

/** Test vectors of docling-metrics-text, in the shared corpus. */
const VECTORS = "docling-metrics/packages/docling-metrics-text/tests/data";
const TOLERANCE = 1e-6;

interface ExpectedMetrics {
  edit_distance_score: number;
  precision_score: number;
  recall_score: number;
  f1_score: number;
}

describe("text NID", () => {
  test("is 1 − indel/(len(ref) + len(pred)) on whitespace-normalized text", () => {
    assert.equal(normalizeWhitespace("  a \n\n b\tc  "), "a b c");
    assert.equal(textNid("The cat sat.", "The  cat\nsat."), 1);
    // "The cat sat." (12) vs "The cat sat" (11): one deletion.
    assert.equal(textNid("The cat sat.", "The cat sat"), 1 - 1 / 23);
    // "kitten" vs "sitting": LCS "ittn" (4), indel 6 + 7 − 8 = 5.
    assert.equal(textNid("kitten", "sitting"), 1 - 5 / 13);
    assert.equal(textNid("abc", "xyz"), 0);
    assert.equal(textNid("", ""), 1);
    assert.equal(textNid("reference", ""), 0);
  });

  test("normalized edit distance is Levenshtein over the longer length", () => {
    assert.equal(normalizedEditDistance("kitten", "sitting"), 3 / 7);
    assert.equal(normalizedEditDistance("", ""), 0);
    assert.equal(normalizedEditDistance("abc", ""), 1);
  });

  test("markdown is compared without placeholders, escapes, entity spellings or delimiter padding", () => {
    assert.equal(markdownForComparison("a\\_b &amp; c\n\n<!-- image -->\n"), "a_b & c");
    assert.equal(
      markdownForComparison("| a   | b |\n|-----|:---:|\n| 1 | 2 |"),
      markdownForComparison("| a | b |\n| --- | --- |\n| 1 | 2 |"),
    );
    assert.equal(markdownForComparison("x - y\n\n---\n"), "x - y ---");
  });
});

describe("word tokens", () => {
  test("cut sentences, then words, as NLTK's word_tokenize (its documented example)", () => {
    const text = "Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\nThanks.";
    assert.deepEqual(wordTokens(text), [
      ..."Good muffins cost $ 3.88 in New York . Please buy me two of them . Thanks .".split(" "),
    ]);
  });

  test("split quotes and clitics; abbreviations and ordinals before lower case do not end a sentence", () => {
    assert.deepEqual(wordTokens(`They said "don't" (twice), e.g. here.`), [
      ..."They said `` do n't '' ( twice ) , e.g. here .".split(" "),
    ]);
    assert.deepEqual(sentences("See Fig. 3 for details. It shows 2. items."), [
      "See Fig. 3 for details.",
      "It shows 2. items.",
    ]);
  });
});

describe("token scores against the docling-metrics-text vectors", { skip: NO_CORPUS }, () => {
  const expected: Record<string, ExpectedMetrics> = NO_CORPUS
    ? {}
    : JSON.parse(readFileSync(corpusPath(VECTORS, "metrics.json"), "utf8"));

  // Every vector is asserted: tokens come from an NLTK-compatible tokenizer whose sentence splitter has no
  // trained Punkt model, which happens to agree with the trained one on all of these texts.
  for (const [id, metrics] of Object.entries(expected)) {
    test(id.slice(0, 12), () => {
      const reference = readFileSync(corpusPath(VECTORS, `md/GT_${id}.md`), "utf8");
      const prediction = readFileSync(corpusPath(VECTORS, `md/pred_${id}.md`), "utf8");
      const scores = tokenScores(reference, prediction);
      // The Python metrics report -1 where a score is undefined or 0 (`score or -1.0`).
      const reported = (value: number | null) => (value === null || value === 0 ? -1 : value);
      assert.ok(
        Math.abs(scores.editDistance - metrics.edit_distance_score) <= TOLERANCE,
        "edit_distance_score",
      );
      assert.ok(
        Math.abs(reported(scores.precision) - metrics.precision_score) <= TOLERANCE,
        "precision_score",
      );
      assert.ok(Math.abs(reported(scores.recall) - metrics.recall_score) <= TOLERANCE, "recall_score");
      assert.ok(Math.abs(reported(scores.f1) - metrics.f1_score) <= TOLERANCE, "f1_score");
    });
  }

  test("all ten vectors are there", () => {
    assert.equal(Object.keys(expected).length, 10);
  });
});
