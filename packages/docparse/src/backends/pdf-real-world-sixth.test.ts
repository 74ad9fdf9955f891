import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";

/**
 * Layout rules found on the sixth fact set's public pages (`test/real-world/facts-sixth.json`), checked as
 * `npm run eval:facts` checks facts, page furniture ignored.
 */

describe("pdf layout on the sixth set's public pages", () => {
  test("a report's notes in four columns of small print set solid read column by column", async () => {
    await assertPdfFacts("acciona-tax-table.pdf", [
      { before: ["2. Tax losses in the year.", "3. Application of unrecorded tax credits."] },
      { before: ["7. Non-capitalisation (recording) of tax credits.", "8. Non-deductible expenses"] },
      {
        present:
          "Furthermore, the social cash flow and tax contribution is published in the Summarised Report. Notes on the",
      },
      { neighbours: ["Mexico", "238"] },
    ]);
  });

  test("labels on the pictures beside numbered steps stay out of the steps' paragraphs", async () => {
    await assertPdfFacts("method-cards-print-instructions.pdf", [
      {
        before: [
          "Fold the cards along the center dotted line to create the spine.",
          "Tape or glue the insides of the cards together so that they don't open up.",
        ],
      },
      { present: "We have provided a little extra space, called print bleed to make sure" },
      { present: "tape" },
    ]);
  });

  test("a note box inside a manual page's frame is read in its place", async () => {
    await assertPdfFacts("camry-maintenance-log-p39.pdf", [
      { before: ["Visually inspect brake linings/drums and brake pads/discs", "NOTE: If 0W-16"] },
      { before: ["replace engine oil and oil filter", "Inspect the following:"] },
    ]);
  });

  test("four ruled columns of contests in one frame are four lists, each a table read whole", async () => {
    await assertPdfFacts("la-precinct-bulletin.pdf", [
      { before: ["TOM LACKEY", "AJ-SUPREME CT-G. LIU"] },
      { before: ["PJ 2D APP DV7-D. PERLUSS", "AJ 2D APP DV8-L. RUBIN"] },
      { neighbours: ["NEEL KASHKARI", "REP"] },
      { neighbours: ["REP", "247"] },
      { neighbours: ["MUKUND SHAH", "159"] },
    ]);
  });

  test("a manual's bold condensed subheads (`-BdCn`) open their lists; its bold running foot is furniture", async () => {
    const file = path.join(REAL_WORLD_DIR, "camry-maintenance-log-p39.pdf");
    const markdown = await engineMarkdown(file, ["page_header", "page_footer", "page_number"]);
    // The subhead is a line of its own, not the end of the list item above it.
    assert.match(markdown, /^(?:#+ )?Driving while towing, using a car-top carrier/m);
    assert.doesNotMatch(markdown, /chassis and body Driving while towing/);
    // Each note under the page's rule is a paragraph of its own, opened by its superscript marker.
    assert.match(markdown, /^2 Reset the oil replacement reminder light/m);
    assert.match(markdown, /^6 Not all vehicles are designed for towing/m);
    await assertPdfFacts("camry-maintenance-log-p39.pdf", [{ absent: "Maintenance Log 39" }]);
  });
});
