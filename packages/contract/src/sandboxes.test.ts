import assert from "node:assert/strict";
import { test } from "node:test";
import { PendingReason, TerminationReason } from "./sandboxes.ts";

test("termination reasons: the spec's values keep their spelling and every value follows the one naming rule", () => {
  const values = TerminationReason.enum as readonly string[];
  for (const spec of [
    "FileSystemNotFound",
    "FileSystemSnapshotNotFound",
    "ImageNotFound",
    "no_capacity",
    "cancelled",
  ]) {
    assert.ok(values.includes(spec), spec);
  }
  for (const value of values) {
    assert.match(value, /^(?:[A-Z][a-z]+)+$|^[a-z]+(?:_[a-z]+)*$/, `${value}: PascalCase or snake_case`);
  }
  assert.equal(new Set(values).size, values.length);
});

test("pending reasons are snake_case and include the image stages", () => {
  const values = PendingReason.enum as readonly string[];
  for (const value of values) assert.match(value, /^[a-z]+(?:_[a-z]+)*$/, value);
  assert.ok(values.includes("building_image") && values.includes("pulling_image"));
});
