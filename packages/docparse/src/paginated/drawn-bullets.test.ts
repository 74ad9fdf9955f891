import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { layoutPage } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

const ITEMS = [
  "Primary DNS: DNSimple (single provider)",
  "TTL settings: 300 seconds",
  "No secondary DNS provider",
];

/** Lines of 11 pt text 20 pt apart from x = 78, each with a disc 3.7 pt wide drawn 8.7 pt before it, or none. */
function listPage(discs: "discs" | "dotted rule") {
  const runs = ITEMS.map((text, i) =>
    textRun(
      text,
      { x1: 78.4, y1: 100 + i * 20, x2: 78.4 + text.length * 5.5, y2: 111.3 + i * 20 },
      { fontSize: 11.3 },
    ),
  );
  const drawings =
    discs === "discs"
      ? ITEMS.map((_, i) => ({ x1: 66, y1: 103.8 + i * 20, x2: 69.7, y2: 107.5 + i * 20 }))
      : // Dots of a dotted underline: tiny, under the text.
        Array.from({ length: 20 }, (_, k) => ({ x1: 78 + k * 3, y1: 112, x2: 79.5 + k * 3, y2: 113.2 }));
  return pageGeometry({ runs, drawings });
}

const lineTexts = (page: ReturnType<typeof listPage>) =>
  layoutPage(page, { detectTables: () => [], dropStruck: false }).entries.flatMap((entry) =>
    entry.kind === "block" ? entry.block.lines.map((line) => line.text) : [],
  );

test("discs drawn before lines of text read as their bullets", () => {
  assert.deepEqual(
    lineTexts(listPage("discs")),
    ITEMS.map((text) => `• ${text}`),
  );
});

test("the dots of a dotted rule are no bullets", () => {
  assert.deepEqual(lineTexts(listPage("dotted rule")), ITEMS);
});

test("a web page printed to PDF keeps its drawn bullets' list items apart", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "rubygems-postmortem-p1.pdf"));
  assert.match(
    markdown,
    /^- Primary DNS: DNSimple \(single provider\)\n- TTL settings: 300 seconds/m,
    markdown,
  );
});
