import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

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
