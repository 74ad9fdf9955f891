import assert from "node:assert/strict";
import { test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { toMarkdown } from "../views/markdown.ts";
import { assembleDocument } from "./assemble.ts";
import { blockText } from "./blocks.ts";
import type { TextRun } from "./geometry.ts";
import { type LayoutStages, layoutPage } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

const STAGES: LayoutStages = { detectTables: () => [], dropStruck: false };
const SIZE = 10.5;

/** A run of Chinese text from `x` on the line whose top is `y`, each character one em wide. */
function chinese(text: string, x: number, y: number): TextRun {
  return textRun(
    text,
    { x1: x, y1: y, x2: x + [...text].length * SIZE, y2: y + SIZE },
    { fontName: "STSongti-SC-Light", fontSize: SIZE },
  );
}

/** A number opening an item, set in the indent before its text. */
function number(text: string, x: number, y: number): TextRun {
  return textRun(
    text,
    { x1: x, y1: y, x2: x + 9, y2: y + SIZE },
    { fontName: "NewCM10-Book", fontSize: SIZE },
  );
}

function markdownOf(runs: TextRun[]): string {
  const layout = layoutPage(pageGeometry({ width: 595, height: 842, runs }), STAGES);
  const doc = assembleDocument([layout], {
    mimeType: "application/pdf",
    backend: "pdf",
    pages: [{ pageNumber: 1, size: { width: 595, height: 842 } }],
    plain: false,
    mergeTables: false,
    warnings: [],
  });
  return toMarkdown(doc, { tableOutputMode: "html", ignore: new Set(), pages: null });
}

function blockTexts(runs: TextRun[]): string[] {
  const layout = layoutPage(pageGeometry({ width: 595, height: 842, runs }), STAGES);
  return layout.entries.flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []));
}

test("a numbered Chinese item whose filled first line stops mid-sentence goes on in a line back at the margin", () => {
  const first = "答题前，先将自己的姓名、准考证号、考场号、座位号填写在试卷和答题卡上，并将准考证";
  const runs = [
    chinese("注意事项：", 72, 100),
    number("1.", 95, 120),
    chinese(first, 109, 120),
    chinese("号条形码粘贴在答题卡上的指定位置。", 72, 136),
    number("2.", 95, 152),
    chinese("考试结束后，请将本试卷和答题卡一并上交。", 109, 152),
    // A numbered heading, short, over text set at the margin: two blocks.
    number("3.", 72, 190),
    chinese("概述", 86, 190),
    chinese("本节说明考试的范围和要求，考生应当在考试开始之前仔细阅读全部内容，并按照要求作答。", 72, 206),
  ];
  const texts = blockTexts(runs);
  assert.ok(
    texts.some((t) => t.includes("并将准考证号条形码粘贴")),
    texts.join("\n"),
  );
  assert.ok(!texts.some((t) => t.includes("概述本节")), texts.join("\n"));
  // The items stand at one depth: each indented where its number stands, not where its last line starts.
  const markdown = markdownOf(runs.slice(0, 6));
  assert.match(markdown, /^1\. 答题前/m);
  assert.match(markdown, /^2\. 考试结束后/m);
});

test("public: a Chinese exam's numbered note reads whole, its second line back at the margin", async () => {
  await assertPdfFacts("zh-exam-math-p1.pdf", [
    {
      present:
        "1. 答题前，先将自己的姓名、准考证号、考场号、座位号填写在试卷和答题卡上，并将准考证号条形码粘贴在答题卡上的指定位置。",
    },
    { present: "写在试卷、草稿纸和答题卡上的非答题区域均无效。" },
  ]);
});
