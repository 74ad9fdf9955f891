import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { blockText } from "../paginated/blocks.ts";
import { layoutPage } from "../paginated/layout.ts";
import { extractPdfPage } from "./extract.ts";
import { joinTrackedLetters } from "./letter-spacing.ts";
import { openPdf } from "./open.ts";
import { onePagePdf } from "./test-pdf.ts";

/** The text of the page's blocks, top to bottom, for a content stream in Helvetica (/F1). */
async function pageText(content: string): Promise<string[]> {
  const doc = await openPdf(onePagePdf(content));
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), { detectTables: () => [], dropStruck: false });
    return layout.entries.flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []));
  } finally {
    await doc.destroy();
  }
}

/** A TJ array drawing `text` with `tracking` thousandths of an em between letters and `word` more at spaces (no space glyph). */
function trackedArray(text: string, tracking: number, word: number): string {
  const parts: string[] = [];
  for (const [i, c] of [...text].entries()) {
    if (c === " ") continue;
    if (i > 0) parts.push(String(-(tracking + (text[i - 1] === " " ? word : 0))));
    parts.push(`(${c})`);
  }
  return `[${parts.join(" ")}] TJ`;
}

test("a word tracked by the character spacing operator (Tc) reads whole; its space glyphs stay word spaces", async () => {
  const text = await pageText(
    [
      "BT /F1 14 Tf 3 Tc 72 700 Td (EINSCHREIBEN) Tj ET",
      "BT /F1 14 Tf 3 Tc 72 660 Td (ZAHLUNG ERINNERUNG) Tj ET",
    ].join("\n"),
  );
  assert.deepEqual(text, ["EINSCHREIBEN", "ZAHLUNG ERINNERUNG"]);
});

test("a heading tracked by a TJ array's numbers reads whole, its word gap (tracking and a space) a space", async () => {
  const text = await pageText(`BT /F1 10 Tf 72 700 Td ${trackedArray("ARTICLE INFO", 170, 420)} ET`);
  assert.deepEqual(text, ["ARTICLE INFO"]);
});

test("a word drawn one glyph at a time, each placed its width and an equal gap after the last, reads whole", async () => {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const size = 12;
  let x = 72;
  const ops: string[] = [];
  for (const c of "SUMMARY") {
    ops.push(`BT /F1 ${size} Tf 1 0 0 1 ${x.toFixed(3)} 700 Tm (${c}) Tj ET`);
    x += font.widthOfTextAtSize(c, size) + 0.25 * size;
  }
  assert.deepEqual(await pageText(ops.join("\n")), ["SUMMARY"]);
});

test("single letters with word spaces stay apart: drawn spaces, TeX's word gaps, initials, too few letters, varying gaps", async () => {
  const lines = [
    // A list's letters with space glyphs between them.
    "BT /F1 10 Tf 72 700 Td (Choose a b c d or e) Tj ET",
    // A TeX line: no space glyphs, every word gap a third of an em, single letters among longer words.
    `BT /F1 10 Tf 72 670 Td ${trackedArray("the options a b c d and e", 0, 333)} ET`,
    // Initials with normal spaces.
    "BT /F1 10 Tf 72 640 Td (J. R. R. Tolkien) Tj ET",
    // Three tracked letters are no evidence.
    `BT /F1 10 Tf 72 610 Td ${trackedArray("ABC", 200, 0)} ET`,
    // Gaps of every width: cells or maths set apart, not tracking.
    "BT /F1 10 Tf 72 580 Td [(x) -150 (y) -400 (z) -250 (w) -520 (v)] TJ ET",
    // Tracked digits (a column of figures) stay as drawn.
    `BT /F1 10 Tf 72 550 Td ${trackedArray("2026", 200, 0)} ET`,
  ];
  assert.deepEqual(await pageText(lines.join("\n")), [
    "Choose a b c d or e",
    "the options a b c d and e",
    "J. R. R. Tolkien",
    "A B C",
    "x y z w v",
    "2 0 2 6",
  ]);
});

test("a chain with a gap that is neither its letter gap nor clearly a word gap is left as read", () => {
  // A B C D E F, gaps 0.2 em but one of 0.27: not uniform, not a word space on top of the tracking.
  const gaps = [1, 3, 5, 7, 9].map(
    (offset, i) => [offset, i === 2 ? 0.27 : 0.2, false] as [number, number, boolean],
  );
  assert.equal(joinTrackedLetters("A B C D E F", gaps), "A B C D E F");
  gaps[2][1] = 0.2;
  assert.equal(joinTrackedLetters("A B C D E F", gaps), "ABCDEF");
});

test("a line tracked with its digits and a kerned pair reads whole: the digits join, the pair's narrower gap holds", async () => {
  // As a word processor tracks a line: every glyph, the space glyphs too, followed by the same gap, except where a
  // kerned pair (`AY`) draws its two letters closer than pdf.js's space; digits tracked like the letters.
  const parts: string[] = [];
  const line = "GEORGIAN KITCHEN - 14 HARBOUR LANE - OPEN TUESDAY TO SUNDAY";
  for (const [i, c] of [...line].entries()) {
    if (i > 0) parts.push(line[i - 1] === "A" && c === "Y" ? "-75" : "-155");
    parts.push(`(${c})`);
  }
  const text = await pageText(`BT /F1 9 Tf 72 700 Td [${parts.join(" ")}] TJ ET`);
  assert.deepEqual(text, ["GEORGIAN KITCHEN - 14 HARBOUR LANE - OPEN TUESDAY TO SUNDAY"]);
});

test("a menu's tracked address line, with a house number and kerned pairs, reads as words", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("ka-restaurant-menu.pdf", [
    { present: "GEORGIAN KITCHEN · 14 HARBOUR LANE · OPEN TUESDAY TO SUNDAY" },
  ]);
});

test("public pages: a German letter's delivery line tracked by Tc, an Elsevier page's headings tracked by TJ", {
  timeout: 600_000,
}, async () => {
  const letter = await engineMarkdown(path.join(REAL_WORLD_DIR, "g-brief-rent-reminder.pdf"));
  assert.match(letter, /\bEINSCHREIBEN\b/);
  const article = await engineMarkdown(path.join(REAL_WORLD_DIR, "elsevier-cas-dc-sample-p1.pdf"));
  assert.match(article, /\bARTICLE INFO\b/);
  assert.match(article, /\bABSTRACT\b/);
});
