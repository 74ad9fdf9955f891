import assert from "node:assert/strict";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import type { TextRun } from "./geometry.ts";
import { buildLines } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

test("a formula's indices hanging under its line, a raised mark opening the row, are read with their bases", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // `H = t c_i^* c_{i+1} + c_i c_j` at 12 pt, its indices at 8 pt lowered by 3.5 pt, the mark raised by 5 pt: the
  // mark sorts first by height, the indices share too little height with it or with the band it started.
  let x = 72;
  const put = (text: string, size: number, rise: number) => {
    page.drawText(text, { x, y: 700 + rise, size, font: fonts.regular });
    x += fonts.regular.widthOfTextAtSize(text, size);
  };
  put("Energy: H = t c", 12, 0);
  const stacked = x;
  put("*", 8, 5);
  x = stacked;
  put("i", 8, -3.5);
  put(" c", 12, 0);
  put("i+1", 8, -3.5);
  put(" + c", 12, 0);
  put("i", 8, -3.5);
  put(" c", 12, 0);
  put("j", 8, -3.5);
  // `x_j^2`: the index and the exponent start together; the index is read first, glued to its base.
  put(" + x", 12, 0);
  const both = x;
  put("2", 8, 5);
  const after = x;
  x = both;
  put("j", 8, -3.5);
  x = after;
  put(" holds.", 12, 0);
  const prose = "The next line of prose under the formula stays a line of its own.";
  page.drawText(prose, { x: 72, y: 680, size: 12, font: fonts.regular });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(result.markdown, /Energy: H = t ci\* ci\+1 \+ ci cj \+ xj2 holds\./, result.markdown);
  assert.ok(result.markdown.includes(prose), result.markdown);
});

/** A run with its box, `size` points. */
const placed = (text: string, box: TextRun["box"], size: number): TextRun =>
  textRun(text, box, { fontSize: size });

/** A run from its left, top and right, as tall as `size` points. */
const run = (text: string, x1: number, y1: number, x2: number, size: number): TextRun =>
  textRun(text, { x1, y1, x2, y2: y1 + size }, { fontSize: size });

test("a stacked fraction's parts beside a letter stay two lines, and so does small text under a line", () => {
  // `(a/bb)` without a bar: `a` raised and `bb` lowered after `(`, each overlapping its height, centred on each other.
  const open = run("(", 50, 100, 54, 10);
  const numerator = run("a", 56.5, 96, 60, 7);
  const denominator = run("bb", 55, 106, 62, 7);
  const lines = buildLines([open, numerator, denominator]).map((line) => line.text);
  assert.ok(lines.includes("a"), JSON.stringify(lines));
  // A caption in small type starting under a heading's end, not overlapping it, is no index.
  const heading = run("Results", 50, 200, 90, 12);
  const caption = run("figures in brackets", 90.5, 213, 150, 8);
  assert.deepEqual(
    buildLines([heading, caption]).map((line) => line.text),
    ["Results", "figures in brackets"],
  );
  // Two headings of different sizes overlapping, the smaller's last word starting where the larger ends: that word
  // goes on its own line, set on from the bracket before it.
  const small = [run("Fund No [", 200, 57.7, 295.6, 11.2), run("Equity]", 295.5, 57.7, 335, 11.2)];
  const large = run("Fund No 1", 150, 64.5, 295, 15.4);
  assert.deepEqual(
    buildLines([...small, large]).map((line) => line.text),
    ["Fund No [Equity]", "Fund No 1"],
  );
});

test("an author's marks hanging over the name's line are read after it, the marks set a word space apart too", () => {
  // `Amy Hendrickson,^{4, †} Julie Steffen,`: the 6 pt marks share under half their height with the 9 pt names.
  const runs = [
    placed("Amy Hendrickson,", { x1: 213, y1: 166.4, x2: 296.6, y2: 172.8 }, 9),
    placed("4,", { x1: 296.6, y1: 164.2, x2: 302.3, y2: 168.4 }, 6),
    placed("†", { x1: 303.9, y1: 162.7, x2: 307.3, y2: 168.4 }, 6),
    placed("Julie Steffen,", { x1: 311.2, y1: 166.4, x2: 376.3, y2: 172.8 }, 9),
  ];
  assert.deepEqual(
    buildLines(runs).map((line) => line.text),
    ["Amy Hendrickson,4, † Julie Steffen,"],
  );
});

test("runs starting together keep the order they were drawn in unless they are an index under an exponent", () => {
  // A note mark drawn from the point its name's comma starts from; TeX's `≠`, a slash drawn over `=`.
  const mark = [
    placed("Karpukhin", { x1: 190, y1: 107.3, x2: 245.2, y2: 118 }, 12),
    placed("∗", { x1: 245.2, y1: 105.2, x2: 249.5, y2: 112.7 }, 8),
    placed(", Barlas", { x1: 245.2, y1: 107.3, x2: 290, y2: 118 }, 12),
  ];
  assert.deepEqual(
    buildLines(mark).map((line) => line.text),
    ["Karpukhin∗, Barlas"],
  );
  const unequal = [
    placed("x", { x1: 100, y1: 100, x2: 106, y2: 110 }, 10),
    placed("6", { x1: 108.8, y1: 99.5, x2: 116.5, y2: 110.5 }, 10),
    placed("=", { x1: 108.8, y1: 100, x2: 116.5, y2: 110 }, 10),
    placed("y", { x1: 119.3, y1: 100, x2: 124.5, y2: 110 }, 10),
  ];
  assert.deepEqual(
    buildLines(unequal).map((line) => line.text),
    ["x 6= y"],
  );
});

test("OCR words of other heights are no scripts: OCR sizes a word by its letters' box, not by a font", () => {
  // A scanned brace taller than its line and the word read beside it, standing out above it.
  const brace = textRun("{", { x1: 100, y1: 100, x2: 108, y2: 120 }, { fontSize: 20, fontName: "ocr" });
  const word = textRun("No", { x1: 108.5, y1: 93, x2: 124, y2: 105 }, { fontSize: 12, fontName: "ocr" });
  assert.deepEqual(
    buildLines([brace, word]).map((line) => line.text),
    ["No", "{"],
  );
});

test("ruby over Japanese and the text beside a drop initial, half its base's size or less, are no scripts", async () => {
  // `き` over `鬼`, as a ruby package sets it: half the size, starting near the base's end, standing out above it.
  const base = run("鬼", 105.8, 145.2, 115, 9.2);
  const ruby = run("き", 112.7, 142.5, 117.3, 4.6);
  assert.deepEqual(
    buildLines([base, ruby]).map((line) => line.text),
    ["き", "鬼"],
  );
  await assertPdfFacts("ja-pxrubrica-tategaki-p1.pdf", [
    { present: "鬼門の方角を凝視する" },
    { present: "葦編三絶" },
  ]);
  await assertPdfFacts("lettrine-dropcaps-fr-p1.pdf", [
    { present: "JUSTEMENT, à quelques kilomètres au nord d’Aigues-Mortes, se trouve la Tour Carbonnière." },
  ]);
});

test("TeX's indices on public pages are read with their bases (`kx`, `ci`, `aij`, `emin`)", async () => {
  // Slides whose formula rows open with a raised dagger or a transpose mark.
  await assertPdfFacts("gridslides-physics-p5-8.pdf", [
    { present: "g kx ky sin kx sin ky cos kx cos ky M" },
    { present: "tci ci 1 ci ci 1 H c" },
  ]);
  // An algorithm's display formula: `b_i − Σ a_ij x_j^(k)`, the indices hanging under the sums' limits.
  await assertPdfFacts("pmlr-algorithms-theorem-p9-10.pdf", [{ present: "aij xj k 1" }]);
  // A Polish article's display formula `e_min = …`.
  await assertPdfFacts("pl-sample-polski-p1.pdf", [{ present: "emin" }]);
});
