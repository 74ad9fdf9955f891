import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";

/**
 * The layout rules of real-world pages on public PDFs: the public-domain ones kept in the repository and the
 * docling corpus's (skipped without the corpus). Facts as `npm run eval:facts` checks them.
 */

describe("pdf layout on public pages", () => {
  test("a three-column journal page: columns read whole despite a stamp line under them", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "federal-register-2020-17221-p2-3.pdf"), [
      { before: ["Indonesia, resulting in 189 fatalities", "altitude disagree alert"] },
      { before: ["continued safe flight and landing", "and the Ethiopian Civil Aviation Authority (ECAA)"] },
      {
        before: [
          "require operators to conduct an AOA sensor system test",
          "command to move the horizontal stabilizer",
        ],
      },
    ]);
  });

  test("a journal page's running head, production stamp and sideways download stamp are furniture", async () => {
    const file = path.join(REAL_WORLD_DIR, "federal-register-2020-17221-p2-3.pdf");
    await assertPdfFacts(file, [
      { absent: "Federal Register / Vol. 85, No. 152 / Thursday, August 6, 2020 / Proposed Rules" },
      { absent: "jbell on DSKJLSW7X2PROD with PROPOSALS" },
      { absent: "VerDate Sep<11>2014" },
      { present: "Hatta International Airport in Jakarta, Indonesia, resulting in 189 fatalities" },
    ]);
    // Kept when furniture is not asked to go: nothing is lost.
    const all = await engineMarkdown(file, []);
    assert.ok(all.includes("Hatta International Airport"));
  });

  test("a transcript page: its running head and reporter's line are furniture on a single page", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "scotus-transcript-p1.pdf"), [
      { absent: "Official - Subject to Final Review" },
      { absent: "Alderson Reporting Company" },
      { before: ["MICHAEL A. KNOWLES", "ALEXANDRE MIRZAYANCE"] },
      // Its line numbers, level with the lines at the margin, are read after the text: the sentence runs whole.
      { present: "came on for oral argument before the Supreme Court of the United States at 1:01 p.m." },
    ]);
  });

  test("a journal page: the caption and the chart's ticks in the bottom band stay, the running head goes", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "data-in-brief-p454.pdf"), [
      { present: "Fig. 5. Langmuir adsorption isotherm of ES" },
      { absent: "O. Sanni, A.P.I. Popoola / Data in Brief 22 (2019) 451–457" },
      { before: ["as shown in Fig. 8", "Fig. 5. Langmuir adsorption isotherm of ES"] },
      // The horizontal axis's ticks, then its title.
      { present: "4 6 8 Concentration (g)" },
    ]);
  });

  test("footnotes at the foot of a single page are kept", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "google-doc-zen.pdf"), [
      { present: "2021 estimate" },
      { before: ["Namespaces are one honking great idea", "2021 estimate"] },
    ]);
  });

  test("a one-page document's header and footer are furniture", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "header-footer-doc.pdf"), [
      { absent: "I Am A Header" },
      { absent: "I Am A Footer" },
      { before: ["Title", "Here is a lovely sentences"] },
    ]);
  });

  test("a statistics table ruled every five rows: one row per state", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "nics-background-checks-2015-11.pdf"), [
      { neighbours: ["Alabama", "18,870"] },
      { neighbours: ["Alaska", "209"] },
      { neighbours: ["Wyoming", "383"] },
    ]);
  });

  test("a ledger ruled in its header only: payee, description and amount in their own cells", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "senate-expenditures.pdf"), [
      { neighbours: ["DISTRICT DIRECTOR", "37,499.96"] },
      { neighbours: ["STAFF ASSISTANT", "25,499.96"] },
    ]);
  });

  test("a manual page: labels drawn on its figures stay text", { skip: NO_CORPUS }, async () => {
    await assertPdfFacts(corpusPath("docling/tests/data", "pdf/sources/amt_handbook_sample.pdf"), [
      { present: "Boots aircraft nut" },
      { present: "Threaded nut core" },
      { before: ["styles and in various shapes and sizes", "the most common ranges in size for No. 6"] },
    ]);
  });

  test("a slide whose banner words are part of its full-page background: read, with the text on top", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "nasa-sed-scorecard-slide.pdf"), [
      { present: "Summit" },
      { present: "2011" },
      { present: "Making IT" },
      { present: "Virtual Machine Environment Scorecard" },
      { before: ["2011", "Code 600: Sciences and Exploration Directorate (SED)"] },
    ]);
  });

  test("a photo beside the text of a page is not taken for text (no OCR)", { skip: NO_CORPUS }, async () => {
    const doc = await openPdf(
      readFileSync(corpusPath("docling/tests/data", "pdf/sources/right_to_left_02.pdf")),
    );
    try {
      const page = await extractPdfPage(doc, 1, { findImageText: true });
      assert.ok(page.images.length > 0);
      assert.deepEqual(page.imageText, []);
    } finally {
      await closePdf(doc);
    }
  });

  test("a report's covers: text printed over the cover pictures is kept", { skip: NO_CORPUS }, async () => {
    await assertPdfFacts(corpusPath("docling/tests/data", "pdf/sources/redp5110_sampled.pdf"), [
      { present: "Leverage row permissions on the database" },
      { present: "Protect columns by defining column masks" },
    ]);
  });
});

describe("pdf layout on the third set's public pages", () => {
  test("a brochure spread's footnote, wrapped over three lines at the page's foot, is content; its page number is not", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "field-guide-spreads.pdf"), [
      { present: "Projects valued at $6M or greater, in Europe and the United States" },
      { absent: "7" },
      {
        before: [
          "so our success rate remains low",
          "In the federal government, technology isn't the challenge",
        ],
      },
    ]);
  });

  test("a legend of tags beside their two-line descriptions reads each tag first", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "method-cards-cover.pdf"), [
      { present: "DISCOVER Learn as much as you can about the project and people involved" },
      { present: "DECIDE Use what you've learned to start focusing your research on specific areas" },
      { before: ["beta deck", "18F Design Method Cards"] },
    ]);
  });

  test("a worksheet's two ruled cells of do's and don'ts keep each paragraph whole", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "evaluator-worksheet-p1-3.pdf"), [
      { present: "Do adequately document your reasoning for any potential increased risk to the government" },
      { before: ["when it appears in other proposals", "Don't make assumptions"] },
      {
        present:
          "Don't make assumptions. Evaluate the text in the tech quote and do not rely on outside information",
      },
    ]);
  });

  test("an instructions page keeps its boxed push-button notice, its title whole beside it, its year", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "irs-i1040nr-p1.pdf"), [
      { present: "You owe the tax on health savings accounts from Form 8889, Part III" },
      { present: "2007 Instructions for Form 1040NR" },
      { before: ["Mailing your return", "use a different address this year"] },
      { absent: "Page 1 of 48" },
    ]);
  });

  test("a fact sheet's price table ruled around groups: a row per line, the charts beside it kept whole", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "usda-ag-energy-round-up.pdf"), [
      { neighbours: ["Minnesota", "1.38 - 1.48"] },
      { neighbours: ["Cornstalks", "41.25"] },
      { neighbours: ["NYMEX Crude Oil ($/barrel)", "54.45"] },
      { present: "Central Illinois Crude Soybean Oil" },
    ]);
  });
});

describe("pdf layout on the fourth set's public pages", () => {
  test("a Japanese notice: short heading lines are not run into the wrapped paragraph under them", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "jp-regulation.pdf"), [
      { before: ["絶縁電線関係", "ケーブル関係"] },
      {
        present:
          "ポリエチレン絶縁電線に裸線をより合わせて引込用に使用されるデュプレックス絶縁電線又はトリプレックス絶縁電線と称されるものは",
      },
    ]);
  });

  test("a scanned leaflet: the address set under the maker's name at the page's foot is content", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "scan-linn-two-column.pdf"), [
      { present: "18720 Oxnard Street, Tarzana, CA 91356 (818) 708-8131" },
      { before: ["sustain pedal, and program changes", "To erase a wrong note"] },
    ]);
  });

  test("an agenda whose body is a ruled table: the guide's line at the page's foot is furniture", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "kickoff-agenda-p1.pdf"), [
      { absent: "De-risking Government Technology Guide 2.0" },
      { neighbours: ["Session", "Purpose"] },
      { present: "The contracting officer goes over contract administration items such as invoicing" },
    ]);
  });

  test("a web print's infobox: each bold label reads beside its value, the article before it", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "wikipedia-pdfjs-p1.pdf"), [
      { neighbours: ["Original author(s)", "Andreas Gal"] },
      { neighbours: ["Developer(s)", "Mozilla"] },
      { before: ["which allows for fast rendering speeds", "PDF.js is used in Thunderbird"] },
      { present: "integrate PDF.js to enable previewing PDF documents" },
    ]);
  });

  test("a drawing form: sideways labels in its strip of boxes stay; a paper's sideways arXiv stamp goes", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "ru-drawing-form.pdf"), [
      { present: "Инв. № подл." },
      { present: "Разраб." },
    ]);
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "dpr-emnlp-p1.pdf"), [
      { absent: "arXiv:2004.04906v3 [cs.CL] 30 Sep 2020" },
      {
        before: [
          "indicating the needs of improving retrieval",
          "Retrieval in open-domain QA is usually implemented",
        ],
      },
    ]);
  });

  test("a German book page: the one-line footnote stays, its marker apart; the running head goes", async () => {
    await assertPdfFacts(path.join(REAL_WORLD_DIR, "geotopo-de-p9.pdf"), [
      { present: "Diese Metrik wird auch „französische Eisenbahnmetrik“ genannt" },
      { absent: "1.2. METRISCHE RÄUME" },
      { present: "Ist X hausdorffsch, so hat jede Folge in X höchstens einen Grenzwert" },
    ]);
  });
});
