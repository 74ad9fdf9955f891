import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { blockText } from "./blocks.ts";
import type { TextRun } from "./geometry.ts";
import { type LayoutStages, layoutPage, type PageEntry } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };

/** One run per word, half an em per character, a third of an em between words. */
function words(text: string, x: number, y: number, size = 10): TextRun[] {
  const runs: TextRun[] = [];
  for (const word of text.split(" ")) {
    const width = word.length * size * 0.5;
    runs.push(textRun(word, { x1: x, y1: y, x2: x + width, y2: y + size }, { fontName: "Times-Roman" }));
    x += width + size * 0.3;
  }
  return runs;
}

function describe(entries: readonly PageEntry[]): string[] {
  return entries.map((entry) => (entry.kind === "block" ? blockText(entry.block) : `[${entry.kind}]`));
}

const PARAGRAPH = [
  "Open retrieval of passages relies on ef-",
  "ficient search over a large collection of",
  "documents that are split into short parts",
  "and read by a model that finds the answer.",
];

test("a stamp running up the margin beside a paragraph does not cut it", () => {
  const runs = PARAGRAPH.flatMap((line, i) => words(line, 90, 200 + i * 12));
  // Sideways text in the left margin whose start sits just below the second line's top, as an arXiv stamp.
  const stamp = textRun(
    "arXiv:2004.04906v3 [cs.CL] 30 Sep 2020",
    { x1: 20, y1: 214, x2: 38, y2: 420 },
    { vertical: true },
  );
  const text = describe(layoutPage(pageGeometry({ runs: [...runs, stamp] }), STAGES).entries);
  assert.ok(
    text.includes(
      "Open retrieval of passages relies on efficient search over a large collection of documents that are split into short parts and read by a model that finds the answer.",
    ),
    text.join(" | "),
  );
  assert.ok(text.includes("arXiv:2004.04906v3 [cs.CL] 30 Sep 2020"), text.join(" | "));
});

test("the DPR paper's abstract reads whole beside its arXiv stamp", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/dpr-emnlp-p1.pdf", import.meta.url));
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const text = describe(layoutPage(await extractPdfPage(doc, 1), STAGES).entries).join(" | ");
    assert.match(text, /Open-domain question answering relies on efficient passage retrieval/, text);
  } finally {
    await doc.destroy();
  }
});
