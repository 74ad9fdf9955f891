import assert from "node:assert/strict";
import { test } from "node:test";
import { fontFace } from "./text.ts";

test("a foundry's abbreviated weight after the family reads as bold", () => {
  for (const name of [
    "ABCDEF+HelveticaNeueLTStd-BdCn",
    "HelveticaNeueLTStd-Bd",
    "Univers-BlkCn",
    "FrutigerLTStd-HvCn",
  ])
    assert.equal(fontFace(name).bold, true, name);
  // Light, medium-less and condensed faces stay regular; a family whose name merely contains the letters too.
  for (const name of [
    "HelveticaNeueLTStd-Cn",
    "HelveticaNeueLTStd-LtCn",
    "Abadi-Regular",
    "Hvitserk-Roman",
    "Bdogrotesk",
  ])
    assert.equal(fontFace(name).bold, false, name);
  assert.equal(fontFace("Times-Bold").bold, true);
});
