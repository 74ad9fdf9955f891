import assert from "node:assert/strict";
import { test } from "node:test";
import {
  capitalSplits,
  compounds,
  headingMatches,
  headings,
  hyphenation,
  lamAlefFolded,
  ligatureShort,
  shiftedFontWords,
  unspacedSplit,
  wordRecall,
} from "./coverage.ts";
import { plainWords } from "./pdf-sets.ts";

test("plainWords: folded words, a word hyphenated at a line end joined, punctuation dropped", () => {
  assert.deepEqual(plainWords("The Docu-\nment’s “Title”, 2024."), ["the", "document", "s", "title", "2024"]);
  assert.deepEqual(plainWords("ﬁne well-known"), ["fine", "well", "known"]);
  // LaTeX fonts map their line-end hyphen to U+2010, which pdftotext keeps.
  assert.deepEqual(plainWords("Ali\u2010\nquam adipiscing"), ["aliquam", "adipiscing"]);
  // Armenian breaks a word at a line end with its own hyphen, U+058A.
  assert.deepEqual(plainWords("թողարկ\u058A\nման"), ["թողարկման"]);
});

test("wordRecall: a Latin word pdftotext reads with a Cyrillic look-alike inside counts as ours in Latin", () => {
  assert.equal(wordRecall(["artіcle", "і"], ["article", "і"]).recall, 1);
  assert.equal(wordRecall(["і"], ["i"]).recall, 0);
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

test("wordRecall: a right-to-left word pdftotext reads backwards counts as ours in its letters' order; Latin does not", () => {
  // pdftotext's يبيبَح is حَبيبي reversed; "olleh" is not taken for "hello".
  assert.equal(wordRecall(["يبيبَح", "habibi"], ["حَبيبي", "habibi"]).recall, 1);
  assert.equal(wordRecall(["olleh"], ["hello"]).recall, 0);
  // Each of ours counts once.
  assert.equal(wordRecall(["يبيبَح", "يبيبَح"], ["حَبيبي"]).recall, 0.5);
});

test("wordRecall: a word pdftotext breaks at a line-end hyphen counts joined or as its two parts, nothing else", () => {
  // A compound's hyphen: pdftotext's lines joined read "faaapproved"; ours keeps "FAA-approved".
  const compound = "an FAA-\napproved MEL";
  assert.equal(
    wordRecall(plainWords(compound), plainWords("an FAA-approved MEL"), hyphenation(compound)).recall,
    1,
  );
  // pdftotext removed the line-end hyphen itself: our compound's two words count.
  const ours = "an FAA- approved MEL";
  const dehyphenated = { joined: compounds(ours), heads: new Set<string>() };
  assert.equal(wordRecall(plainWords("an FAAapproved MEL"), plainWords(ours), dehyphenated).recall, 1);
  // Halves pdftotext reads apart (its order left the line): ours holds the word joined.
  const apart = "panel appoint-\n\n26. If\nments to";
  assert.equal(
    wordRecall(plainWords(apart), plainWords("panel appointments to 26. If"), hyphenation(apart)).recall,
    1,
  );
  // A parallel page read across by pdftotext: the other column's right-to-left line follows the hyphen.
  const across = "дом опи- \u202bמציאות התורה\u202c\nрается/нахон, и";
  assert.equal(
    wordRecall(plainWords(across), plainWords("дом опирается/нахон, и מציאות התורה"), hyphenation(across))
      .recall,
    1,
  );
  // A space inside a word of ours is still a loss.
  const whole = "the harbour";
  const { recall, lost } = wordRecall(plainWords(whole), plainWords("the har bour"), hyphenation(whole));
  assert.equal(recall, 0.5);
  assert.deepEqual([...lost.keys()], ["harbour"]);
});

test("headings: the # lines of markdown, folded; matches as multisets", () => {
  const md = "# Title\n\ntext # not a heading\n\n## 2.1 Results:\n\n## Results";
  assert.deepEqual(headings(md), ["title", "2 1 results", "results"]);
  assert.equal(headingMatches(["title", "results", "results"], ["results", "title"]), 2);
  // The same words in another order (a section number placed after its title) match; other words do not.
  assert.equal(headingMatches(["들어가며 1", "2 results"], ["1 들어가며", "2 result"]), 1);
});

test("shiftedFontWords: lost words that one letter shift turns into ours, only when five agree", () => {
  const ours = new Set(["the", "database", "of", "and", "performance", "operations", "your"]);
  // pdftotext's codes for "the database of and performance operations" shifted by 3, and a real loss.
  const lost = new Map([
    ["wkh", 2],
    ["gdwdedvh", 1],
    ["ri", 1],
    ["dqg", 1],
    ["shuirupdqfh", 1],
    ["rshudwlrqv", 1],
    ["harbour", 1],
  ]);
  assert.deepEqual([...shiftedFontWords(lost, ours).keys()].sort(), [
    "dqg",
    "gdwdedvh",
    "ri",
    "rshudwlrqv",
    "shuirupdqfh",
    "wkh",
  ]);
  // Four agreeing words are not enough to call it a shifted font.
  lost.delete("rshudwlrqv");
  assert.equal(shiftedFontWords(lost, ours).size, 0);
});

test("lamAlefFolded: lam and alef side by side match in either order; other letters keep theirs", () => {
  assert.equal(lamAlefFolded("اإلنتاجية"), lamAlefFolded("الإنتاجية"));
  assert.equal(lamAlefFolded("المشكالت"), lamAlefFolded("المشكلات"));
  assert.notEqual(lamAlefFolded("كتب"), lamAlefFolded("بتك"));
});

test("wordRecall: a word pdftotext reads with a ligature short counts when ours holds it whole, once", () => {
  const { recall, lost } = wordRecall(
    plainWords("he deinition afect he"),
    plainWords("The definition affect"),
  );
  // The second "he" has no "The" left to match.
  assert.equal(recall, 0.75);
  assert.deepEqual([...lost], [["he", 1]]);
  assert.equal(ligatureShort("office"), "oice");
  // A ligature pdftotext reads as nothing: a Cork-encoded bitmap font's control code.
  assert.equal(
    wordRecall(plainWords("Materiais utuantes gura"), plainWords("Materiais flutuantes figura")).recall,
    1,
  );
  // A letter or two left is no trace of a word: a lost `t` stays lost beside our `fit`.
  assert.deepEqual([...wordRecall(plainWords("a t"), plainWords("a fit")).lost], [["t", 1]]);
});

test("unspacedSplit: Chinese and Japanese runs count per character, a wrapped line's cut aside", () => {
  assert.deepEqual(unspacedSplit("路段监控"), ["路", "段", "监", "控"]);
  assert.deepEqual(unspacedSplit("デュプレックス"), ["デ", "ュ", "プ", "レ", "ッ", "ク", "ス"]);
  assert.deepEqual(unspacedSplit("2020年版"), ["2020", "年", "版"]);
  assert.deepEqual(unspacedSplit("hausdorffsch"), ["hausdorffsch"]);
  // pdftotext's run cut at a line end and ours joined are the same characters.
  const reference = ["桥隧监控通信站应", "根据项目实际需要设置"].flatMap(unspacedSplit);
  const ours = ["桥隧监控通信站应根据项目实际需要设置"].flatMap(unspacedSplit);
  assert.equal(wordRecall(reference, ours).recall, 1);
});

test("wordRecall: a word pdftotext spells letter by letter, or reads with its capital apart, counts when ours holds it whole", () => {
  const spaced = "a l e t t e r from C O N S and a";
  assert.equal(wordRecall(plainWords(spaced), plainWords("a letter from CONS and a")).recall, 1);
  // Letters matched elsewhere give their match back: the lone "a" at the end is still ours.
  assert.equal(wordRecall(plainWords("a l e t t e r a"), plainWords("letter a a")).recall, 1);
  // A kerned pair closes a tracked word as two letters.
  assert.equal(wordRecall(plainWords("O P E N T U E S D AY"), plainWords("OPEN TUESDAY")).recall, 1);
  const caps = "L AMPORT and J ustement";
  const splits = capitalSplits(caps);
  assert.deepEqual([...splits], ["lamport", "justement"]);
  assert.equal(
    wordRecall(plainWords(caps), plainWords("LAMPORT and Justement"), undefined, splits).recall,
    1,
  );
  // Without the capital's sign a letter apart is a word of its own: "a cat" glued by ours stays a loss, as do
  // two letters glued, and a word of pdftotext's that ours splits.
  assert.equal(
    wordRecall(plainWords("a cat"), plainWords("acat"), undefined, capitalSplits("a cat")).recall,
    0,
  );
  assert.equal(wordRecall(plainWords("x y"), plainWords("xy")).recall, 0);
  assert.equal(wordRecall(plainWords("ci"), plainWords("c i")).recall, 0);
  // Digits apart are cells, not a word's letters.
  assert.equal(wordRecall(plainWords("1 2 3"), plainWords("123")).recall, 0);
});

test("wordRecall: a Korean word pdftotext reads apart at a line end counts when ours holds it joined", () => {
  const text = "다음과 같\n이 개정한다";
  assert.equal(wordRecall(plainWords(text), plainWords("다음과 같이 개정한다"), hyphenation(text)).recall, 1);
  // Two words pdftotext reads side by side on a line stay two.
  const line = "다음과 같 이 개정한다";
  assert.equal(
    wordRecall(plainWords(line), plainWords("다음과 같이 개정한다"), hyphenation(line)).recall,
    0.5,
  );
  // A table's cells read across: the cell's line ends in `여`, the next cell's text follows on pdftotext's line.
  const cells = "청년, 여 ----다음\n성, 노동자";
  assert.equal(
    wordRecall(plainWords(cells), plainWords("청년, 여성, 노동자 다음"), hyphenation(cells)).recall,
    1,
  );
});
