import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  codePoints,
  codeUnits,
  indelDistance,
  levenshtein,
  longestCommonSubsequence,
  tokenIds,
} from "./edit-distance.ts";

/** The textbook O(nm) dynamic programme, to check the bit-parallel versions against. */
function referenceLevenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

function referenceLcs(a: string, b: string): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : Math.max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.length];
}

/** A deterministic pseudo-random generator (LCG), so failures reproduce. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

function randomText(next: () => number, length: number, alphabet: string): string {
  let text = "";
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}

describe("edit distances", () => {
  test("small known cases", () => {
    assert.equal(levenshtein(codeUnits("kitten"), codeUnits("sitting")), 3);
    assert.equal(indelDistance(codeUnits("kitten"), codeUnits("sitting")), 5);
    assert.equal(longestCommonSubsequence(codeUnits("abcbdab"), codeUnits("bdcaba")), 4);
    assert.equal(levenshtein(codeUnits(""), codeUnits("abc")), 3);
    assert.equal(levenshtein(codeUnits("abc"), codeUnits("")), 3);
    assert.equal(levenshtein(codeUnits("same"), codeUnits("same")), 0);
    assert.equal(indelDistance(codeUnits(""), codeUnits("")), 0);
  });

  test("agree with the dynamic programme on random pairs across block boundaries", () => {
    const next = random(7);
    for (let k = 0; k < 1500; k++) {
      const alphabet = k % 2 === 0 ? "ab" : "abcde ";
      let a = randomText(next, Math.floor(next() * 140), alphabet);
      const b = randomText(next, Math.floor(next() * 140), alphabet);
      if (k % 3 === 0) a = b.slice(0, 40) + a + b.slice(60);
      assert.equal(levenshtein(codeUnits(a), codeUnits(b)), referenceLevenshtein(a, b), `${a} / ${b}`);
      assert.equal(longestCommonSubsequence(codeUnits(a), codeUnits(b)), referenceLcs(a, b), `${a} / ${b}`);
    }
  });

  test("handle texts of 100k characters without a quadratic matrix", () => {
    const a = randomText(random(11), 100_000, "abcdefghij ");
    // One substitution every 1000 characters: Levenshtein 100, indel 200.
    const chars = [...a];
    for (let i = 500; i < chars.length; i += 1000) chars[i] = chars[i] === "Z" ? "Y" : "Z";
    const b = chars.join("");
    assert.equal(levenshtein(codeUnits(a), codeUnits(b)), 100);
    assert.equal(indelDistance(codeUnits(a), codeUnits(b)), 200);
  });

  test("code points count a character outside the BMP once; token ids are shared across lists", () => {
    assert.deepEqual([...codePoints("a😀")], [0x61, 0x1f600]);
    assert.equal(levenshtein(codePoints("😀"), codePoints("😁")), 1);
    assert.equal(levenshtein(codeUnits("😀"), codeUnits("😁")), 1);
    const ids = tokenIds();
    const first = ids(["the", "cat", "sat"]);
    const second = ids(["the", "dog", "sat"]);
    assert.equal(levenshtein(first, second), 1);
  });
});
