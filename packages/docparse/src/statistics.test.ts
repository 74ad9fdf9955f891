import assert from "node:assert/strict";
import { test } from "node:test";
import { median } from "./statistics.ts";

test("median: the middle value, the upper of the two middle ones for an even count, numbers sorted as numbers", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 3);
  assert.equal(median([10, 9, 100]), 10);
  assert.equal(median([2.5]), 2.5);
});

test("median: an empty list gives the fallback, 0 unless told, and the list is not reordered", () => {
  assert.equal(median([]), 0);
  assert.equal(median([], 10), 10);
  const values = [3, 1, 2];
  median(values);
  assert.deepEqual(values, [3, 1, 2]);
});
