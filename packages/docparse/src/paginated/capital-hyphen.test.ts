import assert from "node:assert/strict";
import { test } from "node:test";
import { drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { joinAtCapital, spelledWords } from "./capital-hyphen.ts";

test("joinAtCapital drops the hyphen only when the document spells the joined word without it", () => {
  const spelled = spelledWords(["TraceMonkey executes the program", "an Anglo Saxon charter"]);
  assert.equal(joinAtCapital("the VM Trace-", "Monkey runs", spelled), "the VM TraceMonkey runs");
  assert.equal(joinAtCapital("an Anglo-", "Saxon charter", spelled), "an Anglo-Saxon charter");
  assert.equal(joinAtCapital("a non-", "English page", spelled), "a non-English page");
});

test("a word broken before a capital is one word: a name joined, a compound's hyphen kept", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // Lines broken by hand, as a justified column breaks a name and a compound before their capitals.
  const lines = [
    "The ferry line runs the Harbour-",
    "Link service every hour, and the Franco-",
    "Italian crews change at noon.",
    "",
    "Tickets for HarbourLink are sold on board.",
  ];
  let top = 72;
  for (const text of lines)
    top = drawParagraph(page, text, { x: 72, top, width: 500, font: fonts.regular, size: 10 }).next - 10;
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(
    result.markdown,
    /runs the HarbourLink service every hour, and the Franco-Italian crews/,
    result.markdown,
  );
});

test("a PLDI page joins TraceMonkey where its line broke before the capital", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("tracemonkey-pldi-p2.pdf", [
    {
      present:
        "Figure 2. State machine describing the major activities of TraceMonkey and the conditions that cause transitions to a new activity.",
    },
  ]);
});
