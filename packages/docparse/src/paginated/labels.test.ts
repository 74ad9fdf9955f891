import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import type { Block } from "./blocks.ts";
import { box, type TextRun } from "./geometry.ts";
import { type BlockLabel, type DocumentStyle, documentStyle, labelBlock, withoutMarker } from "./labels.ts";
import { makeLine } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

const PAGE = { width: 612, height: 792 };

interface BlockOptions extends Partial<TextRun> {
  x1?: number;
}

/** A block of one line per text, from y down on a pitch of 1.2 × the font size, half an em per character. */
function block(texts: string | string[], y: number, options: BlockOptions = {}): Block {
  const { x1 = 50, ...run } = options;
  const size = run.fontSize ?? 10;
  const lines = (Array.isArray(texts) ? texts : [texts]).map((text, i) =>
    makeLine([
      textRun(
        text,
        { x1, y1: y + i * size * 1.2, x2: x1 + text.length * size * 0.5, y2: y + i * size * 1.2 + size },
        { fontName: run.bold ? "Times-Bold" : "Times-Roman", ...run },
      ),
    ]),
  );
  return { lines, box: box.union(lines.map((line) => line.box)) };
}

const PROSE = [
  "Body text is set in ten point type and makes up most of the characters",
  "of the document, so that its size is the body size against which headings",
  "are judged; a paragraph of several lines of it comes first on each page.",
];

/** Several paragraphs of 10 pt body text. */
const BODY = [block(PROSE, 200), block(PROSE, 300), block(PROSE, 400), block(PROSE, 500)];

const ELSEWHERE = { firstPage: false, titleTaken: false };

function label(b: Block, style: DocumentStyle, where = ELSEWHERE): BlockLabel {
  return labelBlock(b, PAGE, style, where);
}

function level(result: BlockLabel): number {
  assert.equal(result.label, "section_header");
  return result.label === "section_header" ? result.level : 0;
}

test("the body size is the size most characters are set in", () => {
  const style = documentStyle([...BODY, block("Heading", 100, { fontSize: 16 })], []);
  assert.equal(style.bodySize, 10);
});

test("larger type makes section headers, levels ordered by size", () => {
  const h16 = block("Background", 100, { fontSize: 16 });
  const h13 = block("Earlier work", 150, { fontSize: 13, bold: true });
  const h11 = block("Datasets used", 180, { fontSize: 12 });
  const style = documentStyle([...BODY, h16, h13, h11], []);
  const levels = [h16, h13, h11].map((b) => level(label(b, style)));
  assert.deepEqual(levels, [1, 2, 3]);
});

test("bold beats regular at the same size", () => {
  const bold = block("Bold heading", 100, { fontSize: 12, bold: true });
  const regular = block("Regular heading", 150, { fontSize: 12 });
  const style = documentStyle([...BODY, bold, regular], []);
  assert.ok(level(label(bold, style)) < level(label(regular, style)));
});

test("a bold line in body size is a heading, a bold sentence is not", () => {
  const style = documentStyle(BODY, []);
  assert.equal(label(block("Materials", 100, { bold: true }), style).label, "section_header");
  assert.equal(label(block("This sentence is all in bold.", 100, { bold: true }), style).label, "text");
});

test("body text is text", () => {
  const style = documentStyle(BODY, []);
  assert.deepEqual(label(BODY[0], style), { label: "text" });
});

test("a numbered heading's depth is its level", () => {
  const style = documentStyle(BODY, []);
  assert.equal(level(label(block("2.1 Methods", 100, { bold: true }), style)), 2);
  assert.equal(level(label(block("3 Results", 100, { bold: true }), style)), 1);
  assert.equal(level(label(block("4.2.1. Error analysis", 100, { bold: true }), style)), 3);
  assert.equal(level(label(block("IV. EXPERIMENTS", 100, { bold: true }), style)), 1);
});

test("an unnumbered heading starting with the article `A` takes its level from its style", {}, () => {
  const big = block("Background", 100, { fontSize: 16 });
  const small = block("A Note on Sampling", 150, { fontSize: 12, bold: true });
  const style = documentStyle([...BODY, big, small], []);
  assert.equal(level(label(small, style)), 2);
});

test("`Section 2.3.1 …` takes its level from its number", {}, () => {
  const big = block("Background", 100, { fontSize: 16 });
  const section = block("Section 2.3.1 Data", 150, { fontSize: 13, bold: true });
  const style = documentStyle([...BODY, big, section], []);
  assert.equal(level(label(section, style)), 3);
});

test("`Table 3: …` is a table caption, `Figure 2. …` and `Fig. 4` figure captions", () => {
  const style = documentStyle(BODY, []);
  assert.deepEqual(label(block("Table 3: Results on the test set", 300), style), { label: "table_caption" });
  assert.deepEqual(label(block("Figure 2. The pipeline", 300), style), { label: "figure_caption" });
  assert.deepEqual(label(block("Fig. 4 Error rates by page", 300), style), { label: "figure_caption" });
  assert.deepEqual(label(block("TABLE IV Parameters", 300, { bold: true }), style), {
    label: "table_caption",
  });
});

test("words that merely start with `Table` or `Figure` are not captions", {}, () => {
  const style = documentStyle(BODY, []);
  assert.equal(label(block("Table of Contents", 100, { fontSize: 14 }), style).label, "section_header");
  const prose = block(
    ["Figures show the error rate for each of the", "methods we compared on the test set."],
    300,
  );
  assert.equal(label(prose, style).label, "text");
});

test("a bullet makes an unordered list item with the marker `-`", () => {
  const style = documentStyle(BODY, []);
  assert.deepEqual(label(block("• apples and pears, which grow on trees", 300), style), {
    label: "list_item",
    marker: "-",
    ordered: false,
  });
  assert.equal(withoutMarker("• apples and pears"), "apples and pears");
});

test("`3)` and `(b)` make ordered list items", () => {
  const style = documentStyle(BODY, []);
  assert.deepEqual(label(block("3) tighten the screws until the panel holds", 300), style), {
    label: "list_item",
    marker: "3)",
    ordered: true,
  });
  assert.deepEqual(label(block("(b) the second option in the list of options", 300), style), {
    label: "list_item",
    marker: "(b)",
    ordered: true,
  });
  assert.equal(withoutMarker("3) tighten the screws"), "tighten the screws");
});

test("a monospace font makes code", () => {
  const style = documentStyle(BODY, []);
  for (const fontName of ["Courier", "SourceCodePro-Regular", "JetBrainsMono-Regular", "CMTT10"]) {
    const code = block(["const x = 1;", "console.log(x);"], 300, { fontName });
    assert.deepEqual(label(code, style), { label: "code" }, fontName);
  }
});

test("a number at the bottom or top of the page is a page number", () => {
  const style = documentStyle(BODY, []);
  assert.deepEqual(label(block("12", 760), style), { label: "page_number" });
  assert.deepEqual(label(block("Page 3 of 10", 760), style), { label: "page_number" });
  assert.deepEqual(label(block("Pg: 1 of 1", 30), style), { label: "page_number" });
  assert.deepEqual(label(block("- 4 -", 760), style), { label: "page_number" });
  assert.deepEqual(label(block("xiv", 30), style), { label: "page_number" });
});

test("a number in the digits of another script at the top or bottom of the page is a page number", () => {
  const style = documentStyle(BODY, []);
  // Persian (Extended Arabic-Indic), Arabic-Indic and Devanagari digits.
  for (const digits of ["۶", "١٢", "४२"]) {
    assert.deepEqual(label(block(digits, 30), style), { label: "page_number" }, digits);
    assert.deepEqual(label(block(digits, 760), style), { label: "page_number" }, digits);
    assert.notEqual(label(block(digits, 400), style).label, "page_number", digits);
  }
});

test("a number in the middle of the page is not a page number", () => {
  const style = documentStyle(BODY, []);
  assert.notEqual(label(block("12", 400), style).label, "page_number");
});

test("the largest text near the top of page 1 is the title, once", () => {
  const title = block("A Study of Synthetic Pages", 60, { fontSize: 20 });
  const heading = block("Introduction", 150, { fontSize: 14 });
  const blocks = [title, heading, ...BODY];
  const style = documentStyle(blocks, blocks);
  assert.deepEqual(labelBlock(title, PAGE, style, { firstPage: true, titleTaken: false }), {
    label: "title",
  });
  assert.equal(
    labelBlock(heading, PAGE, style, { firstPage: true, titleTaken: false }).label,
    "section_header",
  );
  // Once a title is found, or on another page, the same look makes a heading.
  assert.equal(labelBlock(title, PAGE, style, { firstPage: true, titleTaken: true }).label, "section_header");
  assert.equal(labelBlock(title, PAGE, style, ELSEWHERE).label, "section_header");
});

test("large text low on page 1 is not the title", () => {
  const low = block("A Large Pull Quote", 600, { fontSize: 20 });
  const style = documentStyle([low, ...BODY], [low, ...BODY]);
  assert.notEqual(labelBlock(low, PAGE, style, { firstPage: true, titleTaken: false }).label, "title");
});

test("lines of `label: value` pairs make a key-value region; one such line, or prose with a colon, does not", () => {
  const style = documentStyle(BODY, []);
  assert.equal(
    label(block(["Invoice number: 4711", "Date: 2 May 2024", "Total due: 1,250.00 EUR"], 600), style).label,
    "key_value_region",
  );
  assert.equal(label(block(["Invoice number: 4711"], 600), style).label, "text");
  assert.equal(
    label(
      block(
        ["The reason is simple: the tests ran twice, and the", "second run found what the first one missed."],
        600,
      ),
      style,
    ).label,
    "text",
  );
});

test("a mail address alone, however large, is not a heading", () => {
  const style = documentStyle(BODY, []);
  assert.equal(label(block("firstname.lastname@example.org", 100, { fontSize: 14 }), style).label, "text");
  assert.equal(label(block("Harbour Office", 100, { fontSize: 14 }), style).label, "section_header");
});

test("a short line set like a paragraph of its page is text, not a heading, however small the body's labels", () => {
  const labels = [
    block("Case number:", 60, { fontName: "Arial", fontSize: 9 }),
    block(
      ["Describe the incident, its cause and the steps", "taken by the agency since it was reported:"],
      90,
      {
        fontName: "Arial",
        fontSize: 9,
      },
    ),
    block(["Summary of earlier services to the family in the", "last five years (not this incident):"], 190, {
      fontName: "Arial",
      fontSize: 9,
    }),
    block(
      ["Actions taken by the agency, with any referral", "made to services and the dates of each one:"],
      250,
      {
        fontName: "Arial",
        fontSize: 9,
      },
    ),
  ];
  const answer = block(
    [
      "The agency received a report about the incident and opened an",
      "assessment the same day, working with the county's investigators",
      "until the case was closed at the end of the following month.",
    ],
    115,
    { fontName: "TimesNewRomanPSMT", fontSize: 11 },
  );
  const short = block("None known", 220, { fontName: "TimesNewRomanPSMT", fontSize: 11 });
  const pageBlocks = [labels[0], labels[1], answer, labels[2], short, labels[3]];
  const style = documentStyle(pageBlocks, pageBlocks);
  const label = labelBlock(short, PAGE, style, { firstPage: false, titleTaken: true, pageBlocks });
  assert.equal(label.label, "text");
  // Without a paragraph in its face on the page, the same line set larger than the body is a heading.
  const alone = [labels[0], labels[1], labels[2], short, labels[3]];
  const heading = labelBlock(short, PAGE, documentStyle(alone, alone), {
    firstPage: false,
    titleTaken: true,
    pageBlocks: alone,
  });
  assert.equal(heading.label, "section_header");
});

test("public page: a filled-in report form's one-line answer is text, and the form's number at its foot left out", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("dsp-incident-report-p1.pdf", [
    { absent: "DCF-F-2476-E (R. 04/2014)" },
    { present: "Date of Incident: 01/09/2015" },
  ]);
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "dsp-incident-report-p1.pdf"))),
    mimeType: "application/pdf",
  });
  assert.ok(!/^#+ N\/A$/m.test(result.markdown), result.markdown);
});

/** One line of runs set one after another, half an em per character, each `[text, font]`. */
function mixedLine(parts: [string, string][], y: number): Block {
  let x = 50;
  const runs = parts.map(([text, fontName]) => {
    const run = textRun(text, { x1: x, y1: y, x2: x + text.length * 5, y2: y + 10 }, { fontName });
    x += text.length * 5 + 3;
    return run;
  });
  const line = makeLine(runs);
  return { lines: [line], box: line.box };
}

test("a choice's letter or Chinese words before a formula make no display formula; the formula alone is one", () => {
  const style = documentStyle(BODY, []);
  const choice = mixedLine(
    [
      ["A.", "NewCM10-Book"],
      ["{2, 3, 4}", "NewCMMath-Book"],
    ],
    600,
  );
  const question = mixedLine(
    [
      ["已知", "STSongti-SC-Light"],
      ["𝑧 = 2 − i + 𝑤 − 3", "NewCMMath-Book"],
    ],
    620,
  );
  const formula = mixedLine([["𝑧 = 2 − i + 𝑤 − 3", "NewCMMath-Book"]], 640);
  assert.notEqual(label(choice, style).label, "formula");
  assert.notEqual(label(question, style).label, "formula");
  assert.equal(label(formula, style).label, "formula");
});

test("public: a Chinese exam's questions and lettered options are no display formulas", async () => {
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "zh-exam-math-p1.pdf"))),
    mimeType: "application/pdf",
  });
  const formulas = result.markdown.split("$$").filter((_, i) => i % 2 === 1);
  assert.ok(!formulas.some((f) => /A\.|已知/.test(f)), result.markdown);
});

test("a bold Chinese sentence ended by its full stop, beside the same in a regular face, is no heading", () => {
  const passage = ["庄子曰：「吾生也有涯，而知也无涯。以有涯随无涯，殆已！", "已而为知者，殆而已矣！」"];
  const regular = block(passage, 100, { fontName: "FandolSong-Regular" });
  const bold = block(passage, 130, { fontName: "FandolSong-Bold", bold: true });
  const style = documentStyle([...BODY, regular, bold], []);
  assert.equal(label(bold, style).label, "text");
  // A bold line in body size without a full stop is still a heading.
  assert.equal(label(block("第一章 养生主", 160, { bold: true }), style).label, "section_header");
});

test("public: a vertical Chinese page's passage set in bold faces is no heading", async () => {
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "zh-fandol-vertical-p2.pdf"))),
    mimeType: "application/pdf",
  });
  assert.ok(!/^#/m.test(result.markdown), result.markdown);
});
