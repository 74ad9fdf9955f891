import assert from "node:assert/strict";
import { test } from "node:test";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import { detectFurniture, type FurnitureCandidate } from "./furniture.ts";

const PAGE = { width: 595, height: 842 };

function candidate(text: string, box: Box, options: Partial<FurnitureCandidate> = {}): FurnitureCandidate {
  return {
    page: 1,
    pageSize: PAGE,
    box,
    text,
    fontSize: 10,
    heading: false,
    pageNumber: false,
    edge: null,
    ...options,
  };
}

const BODY =
  "The paragraph goes on for several lines of body text in the usual size, and nothing about it says that it " +
  "is anything but part of the document's content.";

test("a short label on the top line beside a part that stays content is content too", () => {
  const page = (left: string, leftSize = 10) => [
    candidate(left, { x1: 60, y1: 30, x2: 160, y2: 55 }, { edge: "top", fontSize: leftSize }),
    candidate("Test no. 3 12.03.2024", { x1: 420, y1: 30, x2: 520, y2: 55 }, { edge: "top" }),
    candidate(BODY, { x1: 60, y1: 120, x2: 540, y2: 200 }),
  ];
  // The left part, a field to fill in, stays content: the number and date beside it are the same head.
  assert.equal(detectFurniture(page("Chemistry 9b Name:"), 10, 1).has(1), false);
  // Alone among labels (both short labels), the line is a running head as before.
  assert.equal(detectFurniture(page("Chemistry 9b"), 10, 1).get(1), "page_header");
  // On a later page the line is a running head, its parts furniture as before.
  const later = page("Chemistry 9b Name:").map((c) => ({ ...c, page: 2 }));
  assert.equal(
    detectFurniture([candidate(BODY, { x1: 60, y1: 120, x2: 540, y2: 200 }), ...later], 10, 2).get(2),
    "page_header",
  );
  // A part set much larger (a title in display type) is no part of the same head.
  assert.equal(detectFurniture(page("Chemistry 9b Name:", 16), 10, 1).get(1), "page_header");
});

/** A one-page test: a header block of course and name field, a title, number and date, then questions. */
async function testPage(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const line = (text: string, x: number, top: number, f = font, size = 10) =>
    page.drawText(text, { x, y: 842 - top - size, size, font: f });
  line("Chemistry 9b", 60, 30);
  line("Name:", 60, 44);
  line("Test no. 3", 440, 30);
  line("12.03.2024", 440, 44);
  line("Acids and bases", 60, 90, bold, 14);
  const questions = [
    "1. Which of these solutions is an acid? a vinegar; b soap; c milk of magnesia; d baking soda.",
    "2. Name the products when hydrochloric acid meets sodium hydroxide, and balance the equation.",
    "3. Explain what the pH scale measures and why pure water sits in the middle of it.",
  ];
  for (const [i, q] of questions.entries()) line(q, 60, 130 + i * 40);
  return doc.save();
}

test("a made test page: its number and date beside the name field are kept when furniture is ignored", async () => {
  const { result } = await parseDocument({
    bytes: await testPage(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  const words = markdownSubject(result.markdown).words;
  assert.ok(words.includes("test no 3"), result.markdown);
  assert.match(result.markdown, /Name:/);
});

test("public: the German exam's and vocabulary test's header blocks are kept whole", async () => {
  await assertPdfFacts("de-schule-klausur-p1.pdf", [{ present: "Klausur Nr. 2" }, { absent: "1 von 2" }]);
  await assertPdfFacts("de-schule-vokabeltest-p1.pdf", [
    { present: "Lernzielkontrolle" },
    { absent: "1 von 1" },
  ]);
});
