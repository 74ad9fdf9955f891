import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownSubject } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { isProse } from "./aligned.ts";

test("isProse: three or four long words a cell filling the column are running text, short labels are not", () => {
  // German prose: four words a line, forty letters.
  assert.ok(isProse({ filled: 4, words: 16, numeric: 0, full: 3, markers: 0, characters: 150 }));
  // English prose: five words a line, as before.
  assert.ok(isProse({ filled: 4, words: 22, numeric: 0, full: 3, markers: 0, characters: 100 }));
  // Labels of a word or two, however long the words.
  assert.ok(!isProse({ filled: 4, words: 6, numeric: 0, full: 3, markers: 0, characters: 80 }));
  // Three short words a cell: a table's entries.
  assert.ok(!isProse({ filled: 4, words: 12, numeric: 0, full: 3, markers: 0, characters: 60 }));
});

test("a column of German prose beside an infobox of labels and values is read as prose, not as a table's column", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const prose = [
    "Das modular aufgebaute Betriebssystem wird",
    "von Softwareentwicklern aus aller Welt",
    "weiterentwickelt, die an verschiedenen",
    "Projekten mitarbeiten. Zahlreiche Firmen",
    "unterstützen diese Entwicklungsarbeit",
    "und stellen Entwicklerinnen dafür frei.",
  ];
  const box = [
    ["Entwickler", "diverse"],
    ["Version", "4.7.2"],
    ["Kernel", "monolithisch"],
    ["Lizenz", "GPLv2"],
    ["Sprache", "C"],
    ["Website", "kernel.org"],
  ];
  prose.forEach((line, i) => {
    drawLine(page, line, 72, 100 + i * 14, fonts.regular, 10);
    drawLine(page, box[i][0], 340, 100 + i * 14, fonts.bold, 10);
    drawLine(page, box[i][1], 420, 100 + i * 14, fonts.regular, 10);
  });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  const words = markdownSubject(result.markdown).words;
  assert.ok(
    words.includes(
      " das modular aufgebaute betriebssystem wird von softwareentwicklern aus aller welt weiterentwickelt ",
    ),
    result.markdown,
  );
});

test("a scanned German web print reads its text column whole beside the infobox", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("scan-de-wikipedia-linux.pdf", [
    {
      present:
        "Das modular aufgebaute Betriebssystem wird von Softwareentwicklern auf der ganzen Welt weiterentwickelt",
    },
  ]);
});
