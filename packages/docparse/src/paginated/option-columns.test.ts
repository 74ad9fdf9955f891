import assert from "node:assert/strict";
import { test } from "node:test";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { layoutPage } from "./layout.ts";
import { answerColumns } from "./option-columns.ts";

/** The text lines of a laid-out one-page PDF drawn from `parts` (content-stream operators), tables left out. */
async function linesOf(parts: string[]): Promise<string[]> {
  const doc = await openPdf(onePagePdf(parts.join("\n")));
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), { detectTables: () => [], dropStruck: false });
    return layout.entries.flatMap((entry) =>
      entry.kind === "block" ? entry.block.lines.map((line) => line.text) : [],
    );
  } finally {
    await doc.destroy();
  }
}

const text = (x: number, y: number, s: string) => `BT /F1 10 Tf ${x} ${y} Td (${s}) Tj ET`;

test("a questionnaire's yes and no columns are read on their questions' lines", async () => {
  const parts = [text(40, 700, "B. SLEEP RITUALS")];
  const questions = [
    ["Did you eat anything before going to bed? If so, what?", "what?________"],
    ["Did you drink any alcohol? If so, how much?", "how much?_____"],
    ["Did you listen to any soothing or relaxing music?", ""],
    ["Did you take a warm shower or bath?", ""],
  ];
  questions.forEach(([question, more], i) => {
    const y = 686 - i * 14;
    parts.push(text(40, y, question), text(400, y, "yes"), text(440, y, `no ${more}`.trim()));
  });
  assert.deepEqual(await linesOf(parts), [
    "B. SLEEP RITUALS",
    "Did you eat anything before going to bed? If so, what? yes no what?________",
    "Did you drink any alcohol? If so, how much? yes no how much?_____",
    "Did you listen to any soothing or relaxing music? yes no",
    "Did you take a warm shower or bath? yes no",
  ]);
});

test("two columns of an article on shared baselines are still read column by column", async () => {
  const parts: string[] = [];
  for (let i = 0; i < 4; i++) {
    const y = 700 - i * 12;
    parts.push(text(40, y, `left column line ${i + 1} of the article goes on`));
    parts.push(text(320, y, `right column line ${i + 1} of the article goes on`));
  }
  const lines = await linesOf(parts);
  assert.ok(
    lines.indexOf("left column line 4 of the article goes on") <
      lines.indexOf("right column line 1 of the article goes on"),
    lines.join("\n"),
  );
});

test("a label over its value beside a line is no answer column", () => {
  const at = (x1: number, y: number, t: string) => ({
    box: { x1, y1: y - 10, x2: x1 + t.length * 5, y2: y },
    text: t,
  });
  // `Policy Number:` over its value, beside a line of six words and one of three.
  const left = [at(20, 100, "Sold and Serviced by XXXXXXXX, LLC"), at(20, 112, "Underwritten by XXXXXXXX")];
  const right = [at(400, 100, "Policy Number:"), at(400, 112, "XXXXXXXX")];
  assert.equal(answerColumns([left, right]), false);
  // The same on questions: answers.
  const asked = [
    at(20, 100, "Did you eat anything before bed?"),
    at(20, 112, "Did you drink any alcohol today?"),
  ];
  assert.equal(answerColumns([asked, right]), true);
});
