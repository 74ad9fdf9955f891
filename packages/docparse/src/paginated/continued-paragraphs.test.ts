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
    runs.push(
      textRun(
        word,
        { x1: x, y1: y, x2: x + width, y2: y + size },
        { fontName: "Times-Roman", fontSize: size },
      ),
    );
    x += width + size * 0.3;
  }
  return runs;
}

function lines(texts: string[], x: number, y: number, size = 10): TextRun[] {
  return texts.flatMap((text, i) => words(text, x, y + i * size * 1.2, size));
}

function describe(entries: readonly PageEntry[]): string[] {
  return entries.map((entry) => (entry.kind === "block" ? blockText(entry.block) : `[${entry.kind}]`));
}

/** Two columns: the left one's paragraph breaks at its foot (`ending`), a footnote under it, the right one goes on. */
function brokenParagraph(ending: string, opening: string) {
  return pageGeometry({
    runs: [
      ...lines(
        ["The first column holds a paragraph of", "several lines that runs down to the", ending],
        50,
        600,
      ),
      ...words("∗Work done during a summer internship.", 50, 700, 8),
      ...lines([opening, "one of the same size that ends here."], 320, 100),
      ...lines(["A second paragraph of the right column", "starts after a blank line and is set."], 320, 140),
    ],
  });
}

test("a paragraph broken inside a word at a column's foot is joined to its end at the next column's head", () => {
  const text = describe(
    layoutPage(
      brokenParagraph("foot of the column and to our re-", "search question, and goes on as"),
      STAGES,
    ).entries,
  );
  const joined = text.findIndex((t) =>
    t.includes("to our research question, and goes on as one of the same size"),
  );
  assert.ok(joined >= 0, text.join(" | "));
  // The footnote that stood between the two parts comes after the paragraph.
  assert.ok(text.findIndex((t) => t.startsWith("∗Work done")) > joined, text.join(" | "));
});

test("a paragraph broken inside a sentence is joined; one that ends a sentence is not", () => {
  const broken = describe(
    layoutPage(brokenParagraph("foot of the column and to our", "question, and goes on as"), STAGES).entries,
  );
  assert.ok(
    broken.some((t) => t.includes("to our question, and goes on as")),
    broken.join(" | "),
  );
  const whole = describe(
    layoutPage(brokenParagraph("foot of the column and to our end.", "question, and goes on as"), STAGES)
      .entries,
  );
  assert.ok(!whole.some((t) => t.includes("our end. question")), whole.join(" | "));
  const capital = describe(
    layoutPage(brokenParagraph("foot of the column and to our", "Questions go on as"), STAGES).entries,
  );
  assert.ok(!capital.some((t) => t.includes("our Questions")), capital.join(" | "));
});

test("the ACL preprint's paragraph broken at the left column's foot reads on past its footnote", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/teaching-small-lms-p1.pdf", import.meta.url));
  const doc = await openPdf(new Uint8Array(bytes));
  try {
    const text = describe(layoutPage(await extractPdfPage(doc, 1), STAGES).entries).join(" | ");
    assert.match(text, /This leads us to our research question: can the reasoning capabilities/, text);
    assert.ok(
      text.indexOf("Research conducted during an internship") > text.indexOf("This work explores"),
      text,
    );
  } finally {
    await doc.destroy();
  }
});
