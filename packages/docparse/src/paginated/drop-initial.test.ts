import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { drawLine, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";

test("a step's number set as a drop initial keeps the step's lines in one paragraph, its broken word joined", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // Numbered steps as a recipe sets them: the number two lines tall, the step's first two lines beside it, the
  // third back at the margin.
  const steps = [
    [
      "1",
      "Wash the lentils and leave them to soak in one litre of cold",
      "water overnight, then bring them to the boil in a wide",
      "pan and skim.",
    ],
    [
      "2",
      "Chop the onions, fry them gently in butter until they are gol-",
      "den, and stir in the curry powder, the salt and a bay leaf",
      "before adding them.",
    ],
  ];
  let top = 100;
  for (const [number, first, second, third] of steps) {
    drawLine(page, number, 72, top - 2, fonts.regular, 30);
    drawLine(page, first, 100, top, fonts.regular, 11);
    drawLine(page, second, 100, top + 14, fonts.regular, 11);
    drawLine(page, third, 72, top + 28, fonts.regular, 11);
    top += 60;
  }
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(result.markdown, /in one litre of cold water overnight, then bring them/, result.markdown);
  assert.match(result.markdown, /until they are golden, and stir in the curry powder/, result.markdown);
});

test("a German recipe page's numbered steps read as whole paragraphs, their broken words joined", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "xcookybooky-mousse-p2.pdf"));
  assert.match(markdown, /Sahne separat steif schlagen\. Butter und Schokolade/, markdown);
  assert.match(markdown, /unterheben, anschließend sofort Eischnee/, markdown);
});

test("a drop cap three lines tall opens its paragraph's first line, the lines beside it read in order", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  drawLine(page, "A short heading over the story", 72, 80, fonts.bold, 12);
  // The initial's middle stands by the second line beside it: grouped by it, that line came first.
  drawLine(page, "T", 72, 100, fonts.regular, 40);
  drawLine(page, "HE river rose in the night and by morning the lower fields", 96, 100, fonts.regular, 11);
  drawLine(page, "were under water; the ferry kept to its moorings all day", 96, 113, fonts.regular, 11);
  drawLine(page, "while the farmers brought their cattle up to the high road", 96, 126, fonts.regular, 11);
  drawLine(page, "and waited for the water to fall again before the harvest.", 72, 139, fonts.regular, 11);
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(
    result.markdown,
    /THE river rose in the night and by morning the lower fields were under water; the ferry kept to its moorings all day while the farmers/,
    result.markdown,
  );
});

test("a French page of drop caps two and three lines tall, one hanging in the margin, reads each paragraph in order", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "lettrine-dropcaps-fr-p1.pdf"));
  assert.match(
    markdown,
    /JUSTEMENT, à quelques kilomètres au nord d’Aigues-Mortes, se trouve la Tour Carbonnière\./,
    markdown,
  );
  assert.match(
    markdown,
    /au nord d’Aigues-Mortes, se trouve la Tour Carbonnière\. Elle contrôlait l’unique voie/,
    markdown,
  );
});

test("a drop cap set apart from the rest of its word joins it; a drop cap that is a word of its own keeps its space", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  // As a word processor sets a drop cap: the letter three lines tall, the lines beside it all starting at one
  // indent a few points right of it, the rest of the first word (`very`) included.
  const paragraph = (initial: string, lines: string[], top: number, firstShift: number) => {
    drawLine(page, initial, 72, top - 2, fonts.regular, 36);
    const indent = 72 + fonts.regular.widthOfTextAtSize(initial, 36) + 6;
    lines.forEach((text, i) => {
      drawLine(
        page,
        text,
        i === 0 ? indent + firstShift : i < 3 ? indent : 72,
        top + i * 12,
        fonts.regular,
        10,
      );
    });
  };
  paragraph(
    "E",
    [
      "very autumn, in a draughty shed at the end of the allotments,",
      "a dozen gardeners sit around a trestle table and sort",
      "beans by hand. They are not sorting them for the kitchen",
      "but choosing which beans will be sown next spring.",
    ],
    100,
    0,
  );
  // A word of its own: the first line starts a word space further right than the lines below it.
  paragraph(
    "A",
    [
      "long time ago the village kept a ferry at the ford, and the",
      "ferryman rang a bell from the far bank whenever the river",
      "rose too high for the carts to cross before the harvest",
      "was brought in from the lower fields along the water.",
    ],
    200,
    fonts.regular.widthOfTextAtSize(" ", 10),
  );
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(result.markdown, /Every autumn, in a draughty shed/, result.markdown);
  assert.match(result.markdown, /A long time ago the village/, result.markdown);
});

test("a magazine page's drop cap, set a distance from the rest of its word, reads as one word", {
  timeout: 600_000,
}, async () => {
  await assertPdfFacts("magazine-article-dropcap.pdf", [
    { present: "Every autumn, in a draughty shed at the end of the Wellgate allotments" },
    { before: ["Words by Ruth Calder", "Every autumn"] },
  ]);
});
