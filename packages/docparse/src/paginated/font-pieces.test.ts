import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { buildLines } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

test("a formula's pieces in two fonts, touching on one baseline, stay on one line", () => {
  // An inline sum's lower limit `n∈A` hanging under its line: `n` and `A` in one font, `∈` in another and a
  // little taller, so that `∈` met the band of the line and the other two did not.
  const runs = [
    textRun("∑", { x1: 133.8, y1: 426.7, x2: 144.3, y2: 433.1 }),
    textRun("1/n", { x1: 163.9, y1: 429, x2: 168.8, y2: 435.2 }, { fontSize: 7 }),
    textRun(", jak i wyeksponowanych w osi strony:", { x1: 170, y1: 427.7, x2: 336.6, y2: 436.5 }),
    textRun("n", { x1: 144.3, y1: 432.8, x2: 149.2, y2: 439 }, { fontSize: 7 }),
    textRun("∈", { x1: 149.2, y1: 432.4, x2: 154.6, y2: 439 }, { fontSize: 7 }),
    textRun("A", { x1: 154.6, y1: 432.8, x2: 160.6, y2: 439 }, { fontSize: 7 }),
  ];
  const lines = buildLines(runs);
  assert.deepEqual(
    lines.map((line) => line.text),
    ["∑n∈A 1/n , jak i wyeksponowanych w osi strony:"],
  );
});

test("runs of one size on one baseline but apart, or of other sizes, keep their rows", () => {
  // A small note's two words a word space apart under a line: no pieces of one stretch.
  const runs = [
    textRun("Body text of the line", { x1: 100, y1: 400, x2: 200, y2: 410 }),
    textRun("under", { x1: 120, y1: 408, x2: 140, y2: 415 }, { fontSize: 7 }),
    textRun("it", { x1: 142, y1: 408.4, x2: 150, y2: 415 }, { fontSize: 7 }),
  ];
  assert.equal(buildLines(runs).length, 2);
});

test("public: a Polish sample's inline sum keeps its lower limit in the sentence", async () => {
  await assertPdfFacts("pl-sample-polski-p1.pdf", [
    { present: "w ramach samego akapitu ∑n∈A 1/n , jak i wyeksponowanych w osi strony" },
  ]);
});
