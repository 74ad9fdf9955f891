import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { letteredRowAcrossGutter } from "./option-rows.ts";

// A row of answer options whose last option stands past a strip of whitespace running down the page is read
// along its row: the numbering runs on across the strip (option-rows.ts).

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  return result.markdown;
}

test("an exam's row of options `1.` to `4.` and a `5.` past a strip of whitespace reads 1 to 5", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([560, 640]);
  const size = 10;
  const write = (text: string, x: number, y: number) =>
    page.drawText(text, { x, y, size, font: fonts.regular });
  const questions = [
    [
      "16. What is the sum of the first eight terms of the series",
      "whose first term is one and whose ratio is two?",
    ],
    [
      "17. How many sides does a polygon have whose inner angles",
      "add up to one thousand and eighty degrees?",
    ],
    [
      "18. A square's side is seven inches long. What is the total",
      "length of the sides of all the squares drawn inside it?",
    ],
  ];
  const answers = [
    ["255", "256", "511", "127", "one hundred twenty eight"],
    ["six", "seven", "eight", "nine", "ten or more sides"],
    ["49 in", "56 in", "63 in", "70 in", "98 inches in all"],
  ];
  questions.forEach(([first, second], q) => {
    const top = 580 - q * 80;
    write(first, 40, top);
    write(second, 40, top - 14);
    answers[q].forEach((answer, i) => {
      write(`${i + 1}.`, i < 4 ? 70 + i * 68 : 372, top - 34);
      write(answer, (i < 4 ? 70 + i * 68 : 372) + 12, top - 34);
    });
  });
  write("3 : 4", 370, 380);
  const markdown = await markdownOf(await pdf.save());
  for (const row of answers) {
    const at = row.map((answer, i) => markdown.indexOf(`${i + 1}. ${answer}`));
    assert.ok(
      at.every((p, i) => p >= 0 && (i === 0 || p > at[i - 1])),
      `${row.join(", ")} in order:\n${markdown}`,
    );
  }
  assert.ok(markdown.indexOf("5. one hundred") < markdown.indexOf("17. How many"), markdown);
});

test("a Thai exam's last option `5.` is read in its row, before the next question", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "th-math-exam-p3.pdf")));
  const markdown = await markdownOf(bytes);
  const last = markdown.indexOf("5. 8 + 8/9 i");
  assert.ok(last > markdown.indexOf("4. 8 + 1/9 i") && last < markdown.indexOf("18. "), markdown);
});

test("a row of choices lettered a to d across a strip of whitespace is read along its row", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([560, 640]);
  const write = (text: string, x: number, top: number, bold = false) =>
    page.drawText(text, { x, y: 640 - top, size: 10, font: bold ? fonts.bold : fonts.regular });
  write("1. The solution of the equation x + 1 = 0 is:", 40, 60);
  // Lettered choices on the question's baseline; the strip at x 290–305 runs down the two columns below.
  for (const [i, value] of ["1;", "-1;", "0;", "+8."].entries()) {
    write(String.fromCharCode(97 + i), 230 + i * 70, 60, true);
    write(value, 244 + i * 70, 60);
  }
  write("2. Which is the derivative of 3x squared?", 40, 100);
  const left = [
    "3. Given two statements p and q, four of",
    "the following are equivalent to each other",
    "while one is not. Which one is it then?",
    "and why would that be so, in a few words?",
  ];
  const right = [
    "4. Which sentence says the same as: it is",
    "not true that Mario studies and listens to",
    "the radio at the same time every evening?",
    "Give the reason for the choice you made.",
  ];
  for (const [i, line] of left.entries()) write(line, 40, 140 + i * 13);
  for (const [i, line] of right.entries()) write(line, 320, 140 + i * 13);
  const markdown = await markdownOf(await pdf.save());
  assert.ok(markdown.indexOf("+8.") >= 0 && markdown.indexOf("+8.") < markdown.indexOf("2. Which"), markdown);
  assert.ok(markdown.indexOf("Which one is it") < markdown.indexOf("4. Which sentence"), markdown);
});

test("letteredRowAcrossGutter wants lone letters from `a` in sequence on one baseline, across parts", () => {
  const t = (text: string, x: number) => ({ text, box: { x1: x, y1: 100, x2: x + 6, y2: 110 } });
  assert.equal(letteredRowAcrossGutter([[t("a", 260)], [t("b", 310), t("c", 360), t("d", 410)]]), true);
  assert.equal(letteredRowAcrossGutter([[t("a", 260), t("b", 290), t("c", 300)]]), false);
  // Variables of a sentence, `p e q`: not from `a` in sequence.
  assert.equal(letteredRowAcrossGutter([[t("p", 120)], [t("e", 310), t("q", 360)]]), false);
  assert.equal(letteredRowAcrossGutter([[t("a", 260)], [t("b", 310)]]), false);
});

test("the Italian test's first question's lettered choices are read before the third question", async () => {
  const markdown = await markdownOf(readFileSync(path.join(REAL_WORLD_DIR, "it-verifica-math-test.pdf")));
  const choices = markdown.indexOf("d +∞.");
  assert.ok(choices >= 0 && choices < markdown.indexOf("Indicate con"), markdown);
});
