import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import type { TextRun } from "./geometry.ts";
import { buildLines } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

/** A run of `text` from (x, y): half an em per character, as tall as its font size (ascent 0.8, descent 0.2). */
function run(text: string, x: number, y: number, options: Partial<TextRun> = {}): TextRun {
  const size = options.fontSize ?? 10;
  return textRun(text, { x1: x, y1: y, x2: x + text.length * size * 0.5, y2: y + size }, options);
}

/** A run with an explicit box. */
function placed(text: string, box: Box, options: Partial<TextRun> = {}): TextRun {
  return { ...run(text, box.x1, box.y1, options), box };
}

/** Runs laid out left to right on one baseline, `gap` points apart. */
function row(texts: string[], x: number, y: number, gap: number, options: Partial<TextRun> = {}): TextRun[] {
  const runs: TextRun[] = [];
  for (const text of texts) {
    const r = run(text, x, y, options);
    runs.push(r);
    x = r.box.x2 + gap;
  }
  return runs;
}

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

const texts = (runs: readonly TextRun[]) => buildLines(runs).map((line) => line.text);

test("runs of one line join with a space where they do not touch, and without one where they do", () => {
  // A word space (a third of an em) between words; a kerned word split in two runs that touch.
  const spaced = row(["The", "quick", "brown", "fox"], 50, 100, 3);
  assert.deepEqual(texts(spaced), ["The quick brown fox"]);
  const touching = row(["infor", "mation"], 50, 100, 0);
  assert.deepEqual(texts(touching), ["information"]);
  // A run that brings its own space gets no second one.
  const trailing = [run("Hello ", 50, 100), run("world", 80, 100)];
  assert.deepEqual(texts(trailing), ["Hello world"]);
});

test("justified word spaces of about an em still make one line", () => {
  const justified = row(["wide", "spaced", "justified", "words"], 50, 100, 11);
  assert.deepEqual(texts(justified), ["wide spaced justified words"]);
});

test("runs are read left to right whatever order they come in", () => {
  const runs = row(["one", "two", "three"], 50, 100, 3).reverse();
  assert.deepEqual(texts(runs), ["one two three"]);
});

test("two columns' runs at the same height stay separate lines", () => {
  const left = row(["left", "column", "text"], 50, 100, 3);
  const right = row(["right", "column", "text"], 320, 100, 3);
  const lines = buildLines([...right, ...left]);
  assert.deepEqual(lines.map((line) => line.text).sort(), ["left column text", "right column text"]);
  const leftLine = lines.find((line) => line.text.startsWith("left"));
  assert.ok(leftLine);
  assert.ok(leftLine.box.x2 < 300, "the left column's line does not reach over the gutter");
});

test("consecutive lines set tight stay separate and keep their runs", () => {
  // 10 pt type on 11 pt leading: the boxes touch but each run belongs to its own line.
  const runs = [...row(["first", "line"], 50, 100, 3), ...row(["second", "line"], 50, 111, 3)];
  assert.deepEqual(texts(runs), ["first line", "second line"]);
});

test("a superscript joins its line", () => {
  // 10 pt text on a baseline at 108; a 7 pt exponent raised by 4 pt.
  const base = placed("E = mc", { x1: 50, y1: 100, x2: 80, y2: 110 });
  const exponent = placed("2", { x1: 80, y1: 98.4, x2: 83.5, y2: 105.4 }, { fontSize: 7 });
  const rest = placed("holds", { x1: 86, y1: 100, x2: 111, y2: 110 });
  const lines = buildLines([rest, exponent, base]);
  assert.equal(lines.length, 1);
  assert.equal(lines[0].text, "E = mc2 holds");
  assert.equal(lines[0].fontSize, 10, "the line's size is that of most of its characters");
});

test("a superscript raised by half the line's height joins its line", {}, () => {
  // LaTeX `(a+b)^2` at 10 pt: the exponent is raised by the height of `)` (7.5 pt) less the script font's
  // sup_drop (2.7 pt), 4.8 pt; baseline 108, the 7 pt exponent's baseline at 103.2.
  const base = placed("(a+b)", { x1: 50, y1: 100, x2: 75, y2: 110 });
  const exponent = placed("2", { x1: 75, y1: 97.6, x2: 78.5, y2: 104.6 }, { fontSize: 7 });
  const rest = placed("holds", { x1: 81, y1: 100, x2: 106, y2: 110 });
  assert.deepEqual(texts([base, exponent, rest]), ["(a+b)2 holds"]);
});

test("a subscript joins its line", () => {
  const base = placed("H", { x1: 50, y1: 100, x2: 55, y2: 110 });
  const index = placed("2", { x1: 55, y1: 103.5, x2: 58.5, y2: 110.5 }, { fontSize: 7 });
  const rest = placed("O is water", { x1: 58.5, y1: 100, x2: 108.5, y2: 110 });
  assert.deepEqual(texts([base, index, rest]), ["H2O is water"]);
});

test("runs whose heights overlap, as OCR words on an uneven baseline, join one line", () => {
  const words = [
    placed("scanned", { x1: 50, y1: 100, x2: 85, y2: 112 }),
    placed("words", { x1: 88, y1: 102, x2: 113, y2: 113 }),
    placed("wobble", { x1: 116, y1: 98.5, x2: 146, y2: 110.5 }),
  ];
  assert.deepEqual(texts(words), ["scanned words wobble"]);
});

test("a right-to-left line reads its runs from the right", () => {
  // Laid out on the page left to right: "עולם" then "שלום"; read from the right: "שלום עולם".
  const runs = row(["עולם", "שלום"], 50, 100, 3, { dir: "rtl" });
  const lines = buildLines(runs);
  assert.equal(lines.length, 1);
  assert.equal(lines[0].dir, "rtl");
  assert.equal(lines[0].text, "שלום עולם");
});

test("right-to-left words set a tenth of an em apart are words apart (a bold Arabic face's narrow spaces)", () => {
  // 36 pt words 5.3 pt apart: 0.15 em would glue them, as the Beirut face of an Arabic font sample was.
  const runs = row(["العربية", "الخطوط", "انواع"], 50, 100, 5.3, { dir: "rtl", fontSize: 36 });
  assert.deepEqual(texts(runs), ["انواع الخطوط العربية"]);
  // Latin runs as close stay one word: kerning splits a word's runs by that much.
  assert.deepEqual(texts(row(["Wa", "ter"], 50, 100, 5.3, { fontSize: 36 })), ["Water"]);
});

test("public: the Arabic font samples read each sample's three words apart", async () => {
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(`${REAL_WORLD}ar-font-samples.pdf`)),
    mimeType: "application/pdf",
  });
  assert.doesNotMatch(result.markdown, /انواعالخطوط|الخطوطالعربية/);
  assert.equal(result.markdown.match(/انواع الخطوط العربية/g)?.length, 4, result.markdown);
});

test("numbers and Latin words inside a right-to-left line keep their own order", () => {
  // Logical order: נולד בשנת 2024 בעיר New York היפה. On the page, left to right, the words appear reversed,
  // except that "New York" reads left to right as a unit.
  const rtl = { dir: "rtl" as const };
  const visual: [string, Partial<TextRun>][] = [
    ["היפה", rtl],
    ["New", {}],
    ["York", {}],
    ["בעיר", rtl],
    ["2024", {}],
    ["בשנת", rtl],
    ["נולד", rtl],
  ];
  const runs: TextRun[] = [];
  let x = 50;
  for (const [text, options] of visual) {
    const r = run(text, x, 100, options);
    runs.push(r);
    x = r.box.x2 + 3;
  }
  const lines = buildLines(runs);
  assert.equal(lines.length, 1);
  assert.equal(lines[0].text, "נולד בשנת 2024 בעיר New York היפה");
});

test("a mostly left-to-right line with one Hebrew word stays in page order", () => {
  const runs = [
    ...row(["the", "word"], 50, 100, 3),
    run("שלום", 90, 100, { dir: "rtl" }),
    run("means", 115, 100),
  ];
  const lines = buildLines(runs);
  assert.equal(lines[0].dir, "ltr");
  assert.equal(lines[0].text, "the word שלום means");
});

test("a line whose words at both ends are right-to-left reads from the right, though Latin fills most of it", () => {
  // Logical order: فاصله بین \documentclass و \begin{document} سرآغاز یا preamble نامیده میشود. Drawn left to
  // right, the Latin names hold more letters than the Persian words around them.
  const rtl = { dir: "rtl" as const };
  const visual: [string, Partial<TextRun>][] = [
    ["نامیده میشود.", rtl],
    ["preamble", {}],
    ["سرآغاز یا", rtl],
    ["\\begin{document}", {}],
    ["و", rtl],
    ["\\documentclass", {}],
    ["فاصله بین", rtl],
  ];
  const runs: TextRun[] = [];
  let x = 50;
  for (const [text, options] of visual) {
    const r = run(text, x, 100, options);
    runs.push(r);
    x = r.box.x2 + 3;
  }
  const [line] = buildLines(runs);
  assert.equal(line.dir, "rtl");
  assert.equal(line.text, "فاصله بین \\documentclass و \\begin{document} سرآغاز یا preamble نامیده میشود.");
  // A Latin line with Arabic words at one end only stays in page order.
  const [latin] = buildLines(row(["Read", "the", "chapter", "الخطوط"], 50, 200, 3));
  assert.equal(latin.text, "Read the chapter الخطوط");
});

test("a Latin word set touching an Arabic one is a word of its own; touching Arabic runs join", () => {
  // Right to left on the page: مكتبات (x 40-70), Python (70-100), و (100-105).
  const runs = [
    run("مكتبات", 40, 100, { dir: "rtl" }),
    run("Python", 70, 100),
    run("و", 100, 100, { dir: "rtl" }),
    run("تب", 106, 200, { dir: "rtl" }),
    run("ال", 116, 200, { dir: "rtl" }),
  ];
  const [first, second] = buildLines(runs);
  assert.equal(first.text, "و Python مكتبات");
  assert.equal(second.text, "التب");
});

test("vertical runs make lines of their own", () => {
  const label = placed("Axis label", { x1: 40, y1: 100, x2: 50, y2: 150 }, { vertical: true });
  const body = row(["body", "text"], 52, 120, 3);
  const lines = buildLines([label, ...body]);
  assert.deepEqual(lines.map((line) => line.text).sort(), ["Axis label", "body text"]);
  assert.equal(lines.find((line) => line.text === "Axis label")?.vertical, true);
});

test("a line is bold when most of its characters are", () => {
  const mostlyBold = [run("Bold heading words", 50, 100, { bold: true }), run("x", 145, 100)];
  assert.equal(buildLines(mostlyBold)[0].bold, true);
  const inlineBold = [run("Key", 50, 100, { bold: true }), run("is explained in this sentence", 70, 100)];
  assert.equal(buildLines(inlineBold)[0].bold, false);
});

test("a raised, smaller note marker opening a line is a word of its own; after a word it stays attached", () => {
  // `¹Diese Metrik …`: the marker (7 pt, raised 3 pt) touches the first word (10 pt).
  const opening = [
    placed("1", { x1: 50, y1: 97, x2: 53.5, y2: 104 }, { fontSize: 7 }),
    run("Diese Metrik wird genannt.", 53.5, 100),
  ];
  assert.deepEqual(texts(opening), ["1 Diese Metrik wird genannt."]);
  // `Metrik¹ gilt`: the same marker after a word is part of it.
  const after = [
    run("Metrik", 50, 100),
    placed("1", { x1: 80, y1: 97, x2: 83.5, y2: 104 }, { fontSize: 7 }),
    run(" gilt", 83.5, 100),
  ];
  assert.deepEqual(texts(after), ["Metrik1 gilt"]);
  // A digit in the text's own size and baseline opening a line is not a marker: `1st` stays one word.
  const ordinal = [run("1", 50, 100), run("st place", 55, 100)];
  assert.deepEqual(texts(ordinal), ["1st place"]);
});

test("an exponent set against its base joins it, though a space glyph was drawn before it; a word after a space does not", () => {
  // A math typesetter draws a space before `2` in `i²`; the exponent is smaller, raised, and starts inside the
  // box of its base, so no space of the text stands between them.
  const base = placed("i", { x1: 100, y1: 100, x2: 102, y2: 108.6 }, { fontSize: 8.6 });
  const exponent = placed(
    "2",
    { x1: 101.5, y1: 98.6, x2: 105, y2: 104.2 },
    { fontSize: 5.6, spaceBefore: true },
  );
  const equals = placed(
    "= −1",
    { x1: 108, y1: 100, x2: 125, y2: 108.6 },
    { fontSize: 8.6, spaceBefore: true },
  );
  assert.deepEqual(
    buildLines([base, exponent, equals]).map((line) => line.text),
    ["i2 = −1"],
  );
  // A word of its own size after a drawn space keeps it, however close its box comes.
  const word = placed(
    "OSS",
    { x1: 101.5, y1: 100, x2: 118, y2: 108.6 },
    { fontSize: 8.6, spaceBefore: true },
  );
  assert.deepEqual(
    buildLines([base, word]).map((line) => line.text),
    ["i OSS"],
  );
});

test("an exponent and the text after it on the baseline are two words when a tenth of an em apart", () => {
  // `f(x)e^{-2x} dx`: the exponent in 8 pt raised 4 pt, touching its `e`, then `dx` back on the 12 pt baseline, 1 pt
  // on.
  const runs = [
    placed("f(x)e", { x1: 100, y1: 100, x2: 130, y2: 112 }, { fontSize: 12 }),
    placed("-2x", { x1: 130, y1: 96, x2: 142, y2: 104 }, { fontSize: 8 }),
    placed("dx", { x1: 143, y1: 100, x2: 155, y2: 112 }, { fontSize: 12 }),
  ];
  assert.deepEqual(
    buildLines(runs).map((line) => line.text),
    ["f(x)e-2x dx"],
  );
  // On one baseline the same step is kerning inside a word.
  const flat = [
    placed("equa", { x1: 100, y1: 100, x2: 124, y2: 112 }, { fontSize: 12 }),
    placed("tion", { x1: 125, y1: 100, x2: 149, y2: 112 }, { fontSize: 12 }),
  ];
  assert.deepEqual(
    buildLines(flat).map((line) => line.text),
    ["equation"],
  );
});

test("a script and the letter after it on the baseline are two words when TeX's script space parts them", () => {
  // `B^2 ξ`: the 8 pt exponent raised 4 pt, touching `B`, then `ξ` on the 12 pt baseline half a point on (TeX's
  // script space), as pdftotext reads it; touching, the script stays in its word (`c^†k` read `c†k`).
  const spaced = [
    placed("B", { x1: 100, y1: 100, x2: 108, y2: 112 }, { fontSize: 12 }),
    placed("2", { x1: 108, y1: 96, x2: 112, y2: 104 }, { fontSize: 8 }),
    placed("ξ", { x1: 112.5, y1: 100, x2: 118, y2: 112 }, { fontSize: 12 }),
  ];
  assert.deepEqual(
    buildLines(spaced).map((line) => line.text),
    ["B2 ξ"],
  );
  const touching = [
    placed("B", { x1: 100, y1: 100, x2: 108, y2: 112 }, { fontSize: 12 }),
    placed("2", { x1: 108, y1: 96, x2: 112, y2: 104 }, { fontSize: 8 }),
    placed("ξ", { x1: 112.1, y1: 100, x2: 118, y2: 112 }, { fontSize: 12 }),
  ];
  assert.deepEqual(
    buildLines(touching).map((line) => line.text),
    ["B2ξ"],
  );
});

test("a theorem's powers are read as pdftotext reads them: the base, its exponent, then a space", async () => {
  await assertPdfFacts("pmlr-algorithms-theorem-p9-10.pdf", [{ present: "B k ξ λk ξ" }, { present: "λ2 ξ" }]);
});

test("a slide's Fourier integral keeps the space between its exponent and `dx`", async () => {
  const file = fileURLToPath(new URL("../../test/real-world/usyd-beamer-slides.pdf", import.meta.url));
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(result.markdown, /2πixζ dx/, result.markdown.slice(0, 2000));
});

test("a bold heading number hanging up to 3 ems before its bold heading stays on its line; a table row's does not", () => {
  // `I.` set 28 pt before its heading, as a programme's part numbers hang in a margin of their own.
  const heading = [
    run("I.", 148, 100, { bold: true }),
    ...row(["My", "Very", "Own", "Science"], 180, 100, 3, { bold: true }),
  ];
  assert.deepEqual(texts(heading), ["I. My Very Own Science"]);
  // The same number before plain text, or before two cells apart, is a cell of its own.
  const plain = [run("I.", 148, 100, { bold: true }), ...row(["My", "Very", "Own"], 180, 100, 3)];
  assert.deepEqual(texts(plain), ["I.", "My Very Own"]);
  const cells = [
    run("1.", 148, 100, { bold: true }),
    run("Widgets", 180, 100, { bold: true }),
    run("Gadgets", 300, 100, { bold: true }),
  ];
  assert.deepEqual(texts(cells), ["1.", "Widgets", "Gadgets"]);
});

test("public: a lecture programme's part numbers stay with their headings", async () => {
  const bytes = readFileSync(`${REAL_WORLD}lectureplanner-program.pdf`);
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  assert.match(result.markdown, /^#+ I\. My Very Own Science: Rationale$/m, result.markdown);
  assert.match(result.markdown, /^#+ II\. The History of My Very Own Science$/m);
});
