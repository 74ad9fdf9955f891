import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Box } from "../model.ts";
import { alignWords, type OcrWord, transcriptionRuns } from "./word-boxes.ts";

/** OCR words of one line at `y`, each 40 pt wide with 10 pt between them, starting at x = 72. */
function ocrLine(texts: string[], y: number): OcrWord[] {
  return texts.map((text, i) => ({
    text,
    box: { x1: 72 + i * 50, y1: y, x2: 112 + i * 50, y2: y + 12 },
  }));
}

const inside = (inner: Box, outer: Box) =>
  inner.x1 >= outer.x1 && inner.x2 <= outer.x2 && inner.y1 >= outer.y1 && inner.y2 <= outer.y2;

describe("alignment of a transcription with the page's OCR words", () => {
  test("same words and close spellings match in order; words OCR did not read match nothing", () => {
    assert.deepEqual(alignWords(["Dear", "Anna,", "thank", "you"], ["Dcar", "Anna", "you"]), [0, 1, -1, 2]);
    const crossed = alignWords(["the", "cat"], ["cat", "the"]);
    assert.equal(
      crossed.filter((m) => m >= 0).length,
      1,
      "order is kept: only one of two crossed words matches",
    );
    assert.deepEqual(alignWords(["a", "b"], []), [-1, -1]);
  });

  test("short words match only when spelled the same", () => {
    assert.deepEqual(alignWords(["in", "on"], ["am", "in"]), [1, -1]);
    assert.deepEqual(alignWords(["an"], ["am"]), [-1]);
  });
});

describe("boxes of transcribed words", () => {
  test("matched words take the OCR word's box; a word OCR misread keeps its place between its neighbours", () => {
    const words = ocrLine(["Dear", "Anna,", "thenk", "you"], 100);
    const runs = transcriptionRuns(["Dear Anna, thank you"], words, 612, 792);
    assert.deepEqual(
      runs.map((run) => run.text),
      ["Dear", "Anna,", "thank", "you"],
    );
    runs.forEach((run, i) => {
      assert.deepEqual(run.box, words[i].box, `${run.text} has the OCR box (close spelling included)`);
      assert.ok(run.confidence > 0.9);
    });
  });

  test("a word only the model read is laid out on the line's band, after its left neighbour", () => {
    const words = ocrLine(["Dear", "you"], 100);
    const runs = transcriptionRuns(["Dear Anna you"], words, 612, 792);
    const anna = runs[1];
    assert.equal(anna.text, "Anna");
    assert.ok(anna.box.x1 > words[0].box.x2, "right of Dear");
    assert.equal(anna.box.y1, 100);
    assert.equal(anna.box.y2, 112);
    assert.ok(anna.confidence < runs[0].confidence, "a word one reader saw is less sure than one both saw");
  });

  test("a line with no matched word gets a band between the lines around it, inside the text area", () => {
    const words = [...ocrLine(["first", "line"], 100), ...ocrLine(["third", "line"], 160)];
    const runs = transcriptionRuns(["first line", "zzz qqq", "third line"], words, 612, 792);
    const middle = runs.filter((run) => run.text === "zzz" || run.text === "qqq");
    assert.equal(middle.length, 2);
    for (const run of middle) {
      assert.ok(run.box.y1 >= 112 && run.box.y2 <= 160, `between the lines: ${JSON.stringify(run.box)}`);
      assert.ok(run.box.x1 >= 72, "starts at the text area's left edge or after");
    }
    assert.ok(middle[0].box.x2 <= middle[1].box.x1, "words left to right");
  });

  test("with no OCR word at all, lines are spread down the page inside its margins, in order", () => {
    const runs = transcriptionRuns(["one two", "three", "four five six"], [], 612, 792);
    const page = { x1: 0, y1: 0, x2: 612, y2: 792 };
    for (const run of runs) assert.ok(inside(run.box, page), JSON.stringify(run.box));
    const tops = ["one", "three", "four"].map((text) => runs.find((run) => run.text === text)?.box.y1 ?? -1);
    assert.ok(tops[0] < tops[1] && tops[1] < tops[2], `lines keep their order: ${tops}`);
  });

  test("a match far from its line's band is not an anchor (the same word on another line)", () => {
    // "the" of the model's first line matches the OCR's "the" on a line 300 pt lower: its box is not taken.
    const words = [...ocrLine(["alpha", "beta", "gamma"], 100), ...ocrLine(["the"], 400)];
    const runs = transcriptionRuns(["alpha beta gamma the"], words, 612, 792);
    const the = runs.find((run) => run.text === "the");
    assert.ok(the && the.box.y1 === 100, `the stays on its line: ${JSON.stringify(the?.box)}`);
  });

  test("blank lines and empty answers give no runs", () => {
    assert.deepEqual(transcriptionRuns(["", "   "], ocrLine(["x"], 10), 612, 792), []);
  });
});
