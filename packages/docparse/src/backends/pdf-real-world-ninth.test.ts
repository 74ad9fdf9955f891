import { describe, test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";

/**
 * Layout rules found on the ninth fact set's public pages (`test/real-world/facts-ninth.json`: letters, forms,
 * invoices, flyers, non-English pages), checked as `npm run eval:facts` checks facts, page furniture ignored.
 */

describe("pdf layout on the ninth set's public pages", () => {
  test("a payment advice's first row, which its table left out, is still read", async () => {
    await assertPdfFacts("demo-invoice-payment-advice.pdf", [
      { present: "Customer Bayside Wholesale" },
      { before: ["Pay online now", "Customer Bayside Wholesale"] },
    ]);
  });

  test("a questionnaire's yes and no columns are read on their questions' lines", async () => {
    await assertPdfFacts("sleep-study-questionnaire.pdf", [
      { present: "Did you drink any alcohol? If so, how much? yes no how much" },
      { present: "Did you take a warm shower or bath? yes no Did you do any mental imagery" },
    ]);
  });

  test("a letter's letterhead beside the sender's photo is read before the recipient's address", async () => {
    await assertPdfFacts("awesome-cv-cover-letter.pdf", [
      { before: ["Claud D. Park", "Company Recruitment Team"] },
      { before: ["Republic of Korea", "Google Inc."] },
    ]);
  });

  test("a poster's title over columns of small type is not scattered among them at its word spaces", async () => {
    await assertPdfFacts("festival-timetable-poster-p1.pdf", [
      { present: "Download Festival 2009 Timetable" },
      { before: ["Download Festival 2009 Timetable", "Hollywood Undead"] },
    ]);
  });
});
