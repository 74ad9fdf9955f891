import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { type Fact, factHolds, markdownRows } from "../eval/facts.ts";
import { engineMarkdown, plainWords, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";

/**
 * Layout rules found on the ninth fact set's public pages (`test/real-world/facts-ninth.json`: letters, forms,
 * invoices, flyers, non-English pages), checked as `npm run eval:facts` checks facts, page furniture ignored.
 */

async function assertFacts(file: string, facts: readonly Fact[]): Promise<void> {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, file), [
    "page_header",
    "page_footer",
    "page_number",
  ]);
  const subject = { words: ` ${plainWords(markdown).join(" ")} `, rows: markdownRows(markdown) };
  for (const fact of facts)
    assert.ok(factHolds(fact, subject), `${JSON.stringify(fact)} in:\n${markdown.slice(0, 4000)}`);
}

describe("pdf layout on the ninth set's public pages", () => {
  test("a payment advice's first row, which its table left out, is still read", async () => {
    await assertFacts("demo-invoice-payment-advice.pdf", [
      { present: "Customer Bayside Wholesale" },
      { before: ["Pay online now", "Customer Bayside Wholesale"] },
    ]);
  });

  test("a questionnaire's yes and no columns are read on their questions' lines", async () => {
    await assertFacts("sleep-study-questionnaire.pdf", [
      { present: "Did you drink any alcohol? If so, how much? yes no how much" },
      { present: "Did you take a warm shower or bath? yes no Did you do any mental imagery" },
    ]);
  });

  test("a letter's letterhead beside the sender's photo is read before the recipient's address", async () => {
    await assertFacts("awesome-cv-cover-letter.pdf", [
      { before: ["Claud D. Park", "Company Recruitment Team"] },
      { before: ["Republic of Korea", "Google Inc."] },
    ]);
  });

  test("a poster's title over columns of small type is not scattered among them at its word spaces", async () => {
    await assertFacts("festival-timetable-poster-p1.pdf", [
      { present: "Download Festival 2009 Timetable" },
      { before: ["Download Festival 2009 Timetable", "Hollywood Undead"] },
    ]);
  });
});
