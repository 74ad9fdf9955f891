import assert from "node:assert/strict";
import { test } from "node:test";
import { blockText, buildBlocks } from "./blocks.ts";
import { makeLine } from "./lines.ts";
import { opensNote } from "./note-marker.ts";
import { textRun } from "./test-geometry.ts";

/** A line of 6.5 pt note text at y, from x, opened by a 5.5 pt superscript marker when `marker` is given. */
function noteLine(text: string, y: number, marker?: string) {
  const runs = [textRun(text, { x1: 53.5, y1: y + 1, x2: 346, y2: y + 8.5 }, { fontSize: 6.5 })];
  if (marker) runs.unshift(textRun(marker, { x1: 49.5, y1: y, x2: 52, y2: y + 6.3 }, { fontSize: 5.5 }));
  return makeLine(runs);
}

test("notes under a page's rule, each opened by its superscript marker, are separate blocks", () => {
  const lines = [
    noteLine(
      "Inspect sealed transmissions, transfer cases and differentials for signs of leakage. If any",
      474,
      "1",
    ),
    noteLine("leakage from a sealed component is suspected, have it inspected by a dealer.", 482),
    noteLine(
      "Reset the oil replacement reminder light after maintenance at every 5,000 miles, as the",
      491,
      "2",
    ),
    noteLine("display shows.", 499),
  ];
  const blocks = buildBlocks(lines, { lineGap: 0.5 });
  assert.deepEqual(
    blocks.map((block) => blockText(block).slice(0, 12)),
    ["1 Inspect se", "2 Reset the "],
  );
});

test("opensNote wants a smaller marker before words; a number in body size is text", () => {
  assert.equal(opensNote(noteLine("Reset the light", 491, "2")), true);
  assert.equal(opensNote(noteLine("Reset the light", 491)), false);
  const sameSize = makeLine([
    textRun("12", { x1: 49.5, y1: 491, x2: 56, y2: 498.5 }, { fontSize: 6.5 }),
    textRun("apples and pears", { x1: 58, y1: 491, x2: 120, y2: 498.5 }, { fontSize: 6.5 }),
  ]);
  assert.equal(opensNote(sameSize), false);
});
