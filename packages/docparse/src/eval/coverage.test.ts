import assert from "node:assert/strict";
import { test } from "node:test";
import { headingMatches, headings, wordRecall } from "./coverage.ts";
import { plainWords } from "./pdf-sets.ts";

test("plainWords: folded words, a word hyphenated at a line end joined, punctuation dropped", () => {
  assert.deepEqual(plainWords("The Docu-\nment’s “Title”, 2024."), ["the", "document", "s", "title", "2024"]);
  assert.deepEqual(plainWords("ﬁne well-known"), ["fine", "well", "known"]);
});

test("wordRecall counts words as a multiset and lists what is lost", () => {
  const { recall, lost } = wordRecall(["a", "a", "b", "c"], ["a", "b", "x"]);
  assert.equal(recall, 0.5);
  assert.deepEqual(
    [...lost],
    [
      ["a", 1],
      ["c", 1],
    ],
  );
  assert.equal(wordRecall([], ["a"]).recall, 1);
});

test("headings: the # lines of markdown, folded; matches as multisets", () => {
  const md = "# Title\n\ntext # not a heading\n\n## 2.1 Results:\n\n## Results";
  assert.deepEqual(headings(md), ["title", "2 1 results", "results"]);
  assert.equal(headingMatches(["title", "results", "results"], ["results", "title"]), 2);
});
