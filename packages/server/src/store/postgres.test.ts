import assert from "node:assert/strict";
import { test } from "node:test";
import { toPositionalPlaceholders } from "./postgres.ts";

test("placeholders become $1..$n outside literals, identifiers and comments", () => {
  assert.equal(
    toPositionalPlaceholders("SELECT a FROM t WHERE b = ? AND c = ?"),
    "SELECT a FROM t WHERE b = $1 AND c = $2",
  );
  assert.equal(
    toPositionalPlaceholders(`SELECT '?', 'it''s ?', "q?" FROM t WHERE x = ? -- why?\nAND y = ? /* ? */`),
    `SELECT '?', 'it''s ?', "q?" FROM t WHERE x = $1 -- why?\nAND y = $2 /* ? */`,
  );
  assert.equal(
    toPositionalPlaceholders("SELECT $$ ? $$, $tag$ ? $tag$, ?"),
    "SELECT $$ ? $$, $tag$ ? $tag$, $1",
  );
  assert.equal(toPositionalPlaceholders("SELECT 1"), "SELECT 1");
});
