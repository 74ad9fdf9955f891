import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { blockText, buildBlocks, LIST_MARKER, spelledBlockText, typicalLineGap } from "./blocks.ts";
import { spelledWords } from "./capital-hyphen.ts";
import type { TextRun } from "./geometry.ts";
import { type Line, makeLine } from "./lines.ts";
import { textRun } from "./test-geometry.ts";

interface LineOptions extends Partial<TextRun> {
  x1?: number;
  x2?: number;
}

/** One line of one run at y, from x1 to x2 (a full 240 pt column by default), as tall as its font size. */
function line(text: string, y: number, options: LineOptions = {}): Line {
  const { x1 = 50, x2 = 290, ...run } = options;
  const size = run.fontSize ?? 10;
  return makeLine([textRun(text, { x1, y1: y, x2, y2: y + size }, { fontName: "Times-Roman", ...run })]);
}

/** 10 pt lines on a 12 pt pitch: a 2 pt gap between a line and the next. */
const PITCH = 12;
const CONTEXT = { lineGap: 2 };

const texts = (lines: readonly Line[]) => buildBlocks(lines, CONTEXT).map(blockText);

test("the typical line gap is the gap between lines of one paragraph", () => {
  const lines = [0, 1, 2, 3].map((i) => line(`line ${i} of the paragraph`, 100 + i * PITCH));
  assert.equal(typicalLineGap(lines), 2);
  // Paragraph breaks and lines side by side do not count.
  const withBreak = [...lines, line("next paragraph", 100 + 4 * PITCH + 10)];
  assert.equal(typicalLineGap(withBreak), 2);
});

test("lines whose boxes are taller than their pitch give the typical gap, a negative one", () => {
  // 10 pt boxes on a 9 pt pitch (a font's full height on tight leading): each line overlaps the next by 1 pt.
  const lines = [0, 1, 2, 3, 4].map((i) => line(`line ${i} of the paragraph`, 100 + i * 9));
  const breaks = [
    line("a paragraph after a blank line", 100 + 5 * 9 + 10),
    line("and its line", 100 + 6 * 9 + 10),
  ];
  // A line beside another on its row does not count.
  const beside = line("beside", 100 + 6 * 9 + 10, { x1: 300, x2: 340 });
  assert.equal(typicalLineGap([...lines, ...breaks, beside]), -1);
});

test("lines a line gap apart make one paragraph", () => {
  const lines = [
    line("The first line of a paragraph runs", 100),
    line("across the column and goes on to", 100 + PITCH),
    line("its end.", 100 + 2 * PITCH, { x2: 90 }),
  ];
  const blocks = buildBlocks(lines, CONTEXT);
  assert.equal(blocks.length, 1);
  assert.equal(
    blockText(blocks[0]),
    "The first line of a paragraph runs across the column and goes on to its end.",
  );
  assert.deepEqual(blocks[0].box, { x1: 50, y1: 100, x2: 290, y2: 134 });
});

test("a larger gap starts a new paragraph", () => {
  const lines = [
    line("First paragraph, first line", 100),
    line("first paragraph, second line", 112),
    line("Second paragraph, first line", 134),
    line("second paragraph, second line", 146),
  ];
  assert.deepEqual(texts(lines), [
    "First paragraph, first line first paragraph, second line",
    "Second paragraph, first line second paragraph, second line",
  ]);
});

test("a short last line ending a sentence and an indented first line split paragraphs without a gap", () => {
  const lines = [
    line("A paragraph set without space between", 100),
    line("paragraphs ends on a short line.", 112, { x2: 200 }),
    line("The next one opens indented", 124, { x1: 65 }),
    line("and goes on at the margin.", 136),
  ];
  assert.deepEqual(texts(lines), [
    "A paragraph set without space between paragraphs ends on a short line.",
    "The next one opens indented and goes on at the margin.",
  ]);
});

test("a bold heading above body text is a block of its own", () => {
  const lines = [
    line("Results", 100, { bold: true, fontName: "Times-Bold", x2: 90 }),
    line("The measurements show that the", 112),
    line("method works.", 124, { x2: 120 }),
  ];
  assert.deepEqual(texts(lines), ["Results", "The measurements show that the method works."]);
});

test("a larger heading above body text is a block of its own", () => {
  const lines = [
    line("Introduction", 100, { fontSize: 14, x2: 130 }),
    line("Body text follows the heading", 116),
    line("closely.", 128, { x2: 90 }),
  ];
  assert.deepEqual(texts(lines), ["Introduction", "Body text follows the heading closely."]);
});

test("a sentence running on into a line led by a word in a smaller face (a name in sans) stays one paragraph", () => {
  const lines = [
    line("The non-standard macro package everyshi [2] is used by the", 100, { fontSize: 10 }),
    makeLine([
      textRun(
        "leaflet",
        { x1: 50, y1: 100 + PITCH, x2: 80, y2: 109.5 + PITCH },
        { fontName: "Helvetica", fontSize: 9.5 },
      ),
      textRun(
        " class.",
        { x1: 80, y1: 100 + PITCH, x2: 106, y2: 110 + PITCH },
        { fontName: "Times-Roman", fontSize: 9 },
      ),
    ]),
  ];
  assert.deepEqual(texts(lines), [
    "The non-standard macro package everyshi [2] is used by the leaflet class.",
  ]);
  // A heading in a larger face above its text still stands apart.
  const headed = [
    line("Features", 100, { fontSize: 10.6, fontName: "Helvetica", x2: 110 }),
    line("Basic features of the class follow", 114),
  ];
  assert.deepEqual(texts(headed), ["Features", "Basic features of the class follow"]);
});

test("a bold word inside a line does not split the paragraph", () => {
  const mixed = makeLine([
    {
      text: "Note:",
      box: { x1: 50, y1: 112, x2: 75, y2: 122 },
      fontName: "Times-Bold",
      fontSize: 10,
      bold: true,
      italic: false,
      dir: "ltr",
      confidence: 1,
    },
    {
      text: "the second line of this paragraph",
      box: { x1: 78, y1: 112, x2: 290, y2: 122 },
      fontName: "Times-Roman",
      fontSize: 10,
      bold: false,
      italic: false,
      dir: "ltr",
      confidence: 1,
    },
  ]);
  const lines = [line("The first line of the paragraph and", 100), mixed];
  assert.equal(buildBlocks(lines, CONTEXT).length, 1);
});

test("each bullet starts a new block; an indented continuation stays with its item", () => {
  const lines = [
    line("• The first item, which runs over", 100, { x1: 60 }),
    line("two lines", 112, { x1: 70, x2: 120 }),
    line("• The second item", 124, { x1: 60, x2: 150 }),
    line("• The third item", 136, { x1: 60, x2: 145 }),
  ];
  assert.deepEqual(texts(lines), [
    "• The first item, which runs over two lines",
    "• The second item",
    "• The third item",
  ]);
});

test("enumerated items start new blocks", () => {
  const lines = [
    line("1. Open the file", 100, { x2: 140 }),
    line("2. Read the pages", 112, { x2: 145 }),
    line("(a) in order", 124, { x2: 110 }),
    line("iv) at the end", 136, { x2: 115 }),
  ];
  assert.equal(buildBlocks(lines, CONTEXT).length, 4);
});

test("a line back at the margin after a list item is not part of it", () => {
  const lines = [
    line("- an item", 100, { x1: 70, x2: 120 }),
    line("Text after the list starts at the margin", 112, { x1: 50 }),
  ];
  assert.equal(buildBlocks(lines, CONTEXT).length, 2);
});

test("a paragraph opening with its letter on an indented first line runs on at the margin", () => {
  const lines = [
    line("(c) Excepted position shall have the", 100, { x1: 58, x2: 290 }),
    line("same meaning as the unclassified service.", 112, { x1: 50, x2: 290 }),
    line("(d) An employee shall be considered", 124, { x1: 58, x2: 290 }),
  ];
  assert.deepEqual(buildBlocks(lines, CONTEXT).map(blockText), [
    "(c) Excepted position shall have the same meaning as the unclassified service.",
    "(d) An employee shall be considered",
  ]);
});

test("a word broken at the end of such a first line runs on at the margin, joined", () => {
  const lines = [
    line("(i) Open examinations for the serv-", 100, { x1: 58, x2: 290 }),
    line("ice that test the persons examined.", 112, { x1: 50, x2: 290 }),
    line("(ii) Standards of fitness for ap-", 124, { x1: 58, x2: 290 }),
    line("Pointment is a new sentence at the margin.", 136, { x1: 50, x2: 290 }),
  ];
  assert.deepEqual(buildBlocks(lines, CONTEXT).map(blockText), [
    "(i) Open examinations for the service that test the persons examined.",
    "(ii) Standards of fitness for ap-",
    "Pointment is a new sentence at the margin.",
  ]);
});

test("LIST_MARKER knows bullets and enumerators but not numbers or words", () => {
  for (const text of [
    "• item",
    "– item",
    "1. item",
    "12) item",
    "(3) item",
    "a. item",
    "(b) item",
    "iv. item",
    "IX) item",
  ])
    assert.match(text, LIST_MARKER, text);
  for (const text of ["1999 was a year", "2024. A year", "3.5 litres", "item", "a word", "-5 degrees"])
    assert.doesNotMatch(text, LIST_MARKER, text);
  // A telephone number's area code opening a line is part of the number; an item that starts with a number is not.
  for (const text of ["(818) 708-8131 TELEX", "818) 708 8131", "(020) 7946.0958"])
    assert.doesNotMatch(text, LIST_MARKER, text);
  for (const text of ["(3) 150 boats", "1. 2024 results", "2) 7946 entries"])
    assert.match(text, LIST_MARKER, text);
});

test("lines of two columns read one after the other do not join", () => {
  const lines = [
    line("the last line of the left column", 400),
    line("the first line of the right column", 100, { x1: 320, x2: 560 }),
  ];
  assert.equal(buildBlocks(lines, CONTEXT).length, 2);
});

test("a word hyphenated across a line break is joined again", () => {
  const [block] = buildBlocks([line("the age of infor-", 100), line("mation and its uses", 112)], CONTEXT);
  assert.equal(blockText(block), "the age of information and its uses");
});

test("a hyphen before a capital is kept, the word's two parts joined (Self-Supervised)", () => {
  const [block] = buildBlocks([line("a well-", 100), line("Known problem", 112)], CONTEXT);
  assert.equal(blockText(block), "a well-Known problem");
});

test("a hyphen after a number is not a hyphenation", () => {
  const [dash] = buildBlocks([line("pages 10-", 100), line("20 of the report", 112)], CONTEXT);
  assert.equal(blockText(dash), "pages 10- 20 of the report");
});

test("a word broken with the Unicode hyphen (U+2010) is joined again", {}, () => {
  const [block] = buildBlocks([line("the age of infor\u2010", 100), line("mation", 112)], CONTEXT);
  assert.equal(blockText(block), "the age of information");
});

test("Chinese and Japanese lines join without a space", () => {
  const [chinese] = buildBlocks([line("这是一个很长的句子", 100), line("在下一行继续。", 112)], CONTEXT);
  assert.equal(blockText(chinese), "这是一个很长的句子在下一行继续。");
  const [japanese] = buildBlocks([line("日本語の文章は改行", 100), line("されても続きます。", 112)], CONTEXT);
  assert.equal(blockText(japanese), "日本語の文章は改行されても続きます。");
});

test("Korean lines, which space their words, join with a space", () => {
  const [korean] = buildBlocks([line("한국어 문장은 줄이", 100), line("바뀌어도 띄어 씁니다", 112)], CONTEXT);
  assert.equal(blockText(korean), "한국어 문장은 줄이 바뀌어도 띄어 씁니다");
});

test("a Korean line broken inside a word joins the next without a space when the document spells the word", () => {
  // Justified Korean breaks at any syllable: `대표` + `성을` is one word, which the document spells elsewhere
  // (`대표성이`, with another ending); `각` + `호에` is two, and nothing spells a word going on from `각호`.
  const [block] = buildBlocks(
    [line("사회계층의 대표", 100), line("성을 반영하여야 다음 각", 112), line("호에 해당하는 단체", 124)],
    CONTEXT,
  );
  const spelled = spelledWords(["사회계층의 대표성이 반영될 수 있도록", "SK하이닉스 각 호를"]);
  assert.equal(spelledBlockText(block, spelled), "사회계층의 대표성을 반영하여야 다음 각 호에 해당하는 단체");
  // Without the document's words the break stays a space, as before.
  assert.equal(blockText(block), "사회계층의 대표 성을 반영하여야 다음 각 호에 해당하는 단체");
  // A word's Hangul after Latin letters counts (`SK하이닉스` spells `하이닉스`).
  const [name] = buildBlocks([line("SK하이닉", 100), line("스 등 입니다", 112)], CONTEXT);
  assert.equal(spelledBlockText(name, spelled), "SK하이닉스 등 입니다");
});

test("a Korean bill joins its words broken at line ends where it spells them elsewhere", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("ko-bill-amendment-p3-p7.pdf", [
    { present: "다음 각 호에 해당하는 단체로부터 후보를 추천받아 다양한 사회계층의 대표성을 반영하여야" },
    { present: "기본법 일부를 다음과 같이 개정한다" },
  ]);
});

test("a Korean line opening with a particle standing alone closes the word the line before broke", () => {
  // `을`, `는`, `의`, `로` are never words by themselves: the line end broke `기준을`, `대상이라는`. `이` is also a
  // word ("this": `이 법은`), so a line opening with it alone stays apart without the document's spelling.
  const [block] = buildBlocks(
    [
      line("지급 기준", 100),
      line("을 정립함에 있어 대상이라", 112),
      line("는 주장과 달리 경우에는", 124),
      line("이 법에 따른다", 136),
    ],
    CONTEXT,
  );
  assert.equal(blockText(block), "지급 기준을 정립함에 있어 대상이라는 주장과 달리 경우에는 이 법에 따른다");
});

test("a Korean line opening with the formal ending -습니다 / -ㅂ니다 goes on with the word before it", () => {
  // No word starts with `습니` or `니다`: the line end broke `마감했습니다`, `전망됩니다`. `됩니다` opens with `됩`,
  // which may start a word, so that line stays apart without the document's spelling.
  const [block] = buildBlocks(
    [
      line("3.57% 하락 마감했", 100),
      line("습니다. 시장은 전망", 112),
      line("됩니다 다음 전망됩", 124),
      line("니다.", 136),
    ],
    CONTEXT,
  );
  assert.equal(blockText(block), "3.57% 하락 마감했습니다. 시장은 전망 됩니다 다음 전망됩니다.");
});

test("a Korean fund report joins a word whose particle opens the next line", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("ko-china-fund-monthly-report.pdf", [
    { present: "미중 간 갈등에 따른 노이즈로 인해 시장 변동성이 지속될 것으로 전망됩니다" },
  ]);
  await assertPdfFacts("ko-fund-monthly-report.pdf", [{ present: "하락 마감했습니다" }]);
});

test("a Chinese line ending in a full-width comma joins the next without a space", {}, () => {
  const [block] = buildBlocks([line("这是第一行，", 100), line("这是第二行。", 112)], CONTEXT);
  assert.equal(blockText(block), "这是第一行，这是第二行。");
});

test("a Japanese line that stops short of the column was not wrapped: it ends its block", () => {
  // A short heading above a paragraph of full lines, then the paragraph's short last line above the next heading;
  // all set a line gap apart, as in a notice that numbers its sections without spacing them.
  const lines = [
    line("１．１ 絶縁電線関係", 100, { x2: 150 }),
    line("ポリエチレン絶縁電線に裸線をより合わせて引込用に使用されるデュプ", 112),
    line("レックス絶縁電線と称されるものは、対象外として取り扱う。", 124, { x2: 230 }),
    line("１．２ ケーブル関係", 136, { x2: 150 }),
  ];
  assert.deepEqual(texts(lines), [
    "１．１ 絶縁電線関係",
    "ポリエチレン絶縁電線に裸線をより合わせて引込用に使用されるデュプレックス絶縁電線と称されるものは、対象外として取り扱う。",
    "１．２ ケーブル関係",
  ]);
  // A line that fills the column, or stops a character or two short of it, still wraps into the next.
  const full = [
    line("これは長い文章の一行目で", 100, { x2: 272 }),
    line("二行目もまた長く続いて", 112),
    line("三行目で終わる。", 124, { x2: 150 }),
  ];
  assert.deepEqual(texts(full), ["これは長い文章の一行目で二行目もまた長く続いて三行目で終わる。"]);
});

test("a contents entry ends at its page number: one block per entry, a wrapped title kept whole", () => {
  const lines = [
    line("Notices . . . . . . . . . . . . . . . . . . . . . vii", 100),
    line("Preface . . . . . . . . . . . . . . . . . . . . . . xi", 100 + PITCH),
    line("Chapter 1. Securing and protecting the data held in", 100 + 2 * PITCH),
    line("a database . . . . . . . . . . . . . . . . . . . . . 1", 100 + 3 * PITCH),
    line("1.1 Security fundamentals. . . . . . . . . . . . . . 2", 100 + 4 * PITCH),
  ];
  assert.deepEqual(texts(lines), [
    "Notices . . . . . . . . . . . . . . . . . . . . . vii",
    "Preface . . . . . . . . . . . . . . . . . . . . . . xi",
    "Chapter 1. Securing and protecting the data held in a database . . . . . . . . . . . . . . . . . . . . . 1",
    "1.1 Security fundamentals. . . . . . . . . . . . . . 2",
  ]);
  // An ellipsis inside a sentence is no leader.
  const prose = [
    line("He paused . . . and then went on to", 100),
    line("say more.", 100 + PITCH, { x2: 90 }),
  ];
  assert.equal(texts(prose).length, 1);
});

test("a reference whose first line is mostly its italic title goes on into the line hanging under it", () => {
  const lines = [
    line("[1] Markus Kohm. The Guide to the Classes.", 100, { italic: true }),
    line("14. Jan. 2019. URL: https://example.org/guide.pdf", 112, { x1: 70 }),
    line("[2] Rolf Niepraschk. The document class leaflet.", 131),
    line("27. Dez. 2015. URL: https://example.org/leaflet.pdf", 143, { x1: 70 }),
  ];
  assert.deepEqual(texts(lines), [
    "[1] Markus Kohm. The Guide to the Classes. 14. Jan. 2019. URL: https://example.org/guide.pdf",
    "[2] Rolf Niepraschk. The document class leaflet. 27. Dez. 2015. URL: https://example.org/leaflet.pdf",
  ]);
  // A lone italic line over its text, no item's mark before it, is still a heading of its own.
  const heading = [
    line("The Guide to the Classes", 100, { italic: true }),
    line("Its text goes on here.", 112),
  ];
  assert.equal(texts(heading).length, 2);
});

test("a leaflet's reference with an italic title reads whole, its date line in it", async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "tuda-leaflet-trifold.pdf"), []);
  assert.match(
    markdown,
    /^\[1\] Markus Kohm\. KOMA-Script\. Die Anleitung\. 14\\?\. Jan\. 2019\. URL:/m,
    markdown,
  );
});
