import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import fontkit from "@pdf-lib/fontkit";
import type { ParsingOptions } from "@svc/contract";
import { degrees, PDFDict, PDFDocument, PDFName, type PDFPage, rgb } from "pdf-lib";
import { markdownRows } from "../eval/facts.ts";
import { plainWords } from "../eval/pdf-sets.ts";
import { type ParseViews, parseDocument } from "../index.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import {
  chartPng,
  drawGrid,
  drawGridText,
  drawLine,
  drawParagraph,
  newPdf,
  PAGE_HEIGHT,
  PAGE_WIDTH,
  pdfBytes,
  textImage,
  typeThreeLine,
} from "./pdf-fixtures.ts";

/**
 * Real-world page layouts, end to end on pages made for each rule: text over pictures, reading order of cards
 * and columns, furniture on a single page.
 */

async function parsePdf(bytes: Uint8Array, parsing: Partial<ParsingOptions> = {}): Promise<ParseViews> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: { parsing } });
  return result;
}

/** `texts` appear in the markdown, each once, in this order. */
function assertInOrder(markdown: string, texts: readonly string[]): void {
  let from = 0;
  for (const text of texts) {
    const at = markdown.indexOf(text, from);
    assert.ok(at >= 0, `${JSON.stringify(text)} after offset ${from} in:\n${markdown}`);
    from = at + text.length;
  }
}

describe("pdf layout: text over pictures", () => {
  test("text drawn over a picture (a card's photo, a diagram's labels) stays text, in reading order", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const before = "The festival programme for the summer season is printed below in full.";
    const after = "Tickets are sold at the harbour office every day from nine until five.";
    drawParagraph(page, before, { x: 72, top: 90, width: 468, font: fonts.regular, size: 11 });
    const picture = await pdf.embedPng(await chartPng(400, 200));
    page.drawImage(picture, { x: 72, y: PAGE_HEIGHT - 130 - 200, width: 400, height: 200 });
    // A banner title and a label printed on the picture itself.
    drawParagraph(page, "Harbour Lights Festival", {
      x: 120,
      top: 150,
      width: 300,
      font: fonts.bold,
      size: 18,
    });
    drawParagraph(page, "Opening night on the quay", {
      x: 120,
      top: 290,
      width: 300,
      font: fonts.regular,
      size: 10,
    });
    drawParagraph(page, after, { x: 72, top: 360, width: 468, font: fonts.regular, size: 11 });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, [before, "Harbour Lights Festival", "Opening night on the quay", after]);
    const types = result.pages[0].page_fragments?.map((f) => f.fragment_type) ?? [];
    assert.ok(types.includes("figure"), `the picture is still a figure: ${types}`);
  });
});

describe("pdf layout: text without a text layer on a digital page", () => {
  test("a slide's title banner drawn as an image is read by OCR and placed before the slide's text", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    // The banner: 8 × 1.5 inches of image whose only content is its title, set in 28 pt type.
    const banner = await pdf.embedPng(
      await textImage(["Quarterly Harbour Results"], { fontPt: 28, dpi: 200, widthIn: 8, heightIn: 1.5 }),
    );
    page.drawImage(banner, { x: 18, y: PAGE_HEIGHT - 36 - 108, width: 576, height: 108 });
    const body = "Ferry crossings rose by a tenth over the quarter while cargo stayed level.";
    drawParagraph(page, body, { x: 72, top: 200, width: 468, font: fonts.regular, size: 14 });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, ["Quarterly Harbour Results", body]);
    const text = result.markdown.match(/Ferry crossings/g) ?? [];
    assert.equal(text.length, 1, "the text layer's own text is not read twice");
  });
});

describe("pdf layout: one-line labels set as images", () => {
  /** A label as a producer turns it into an image: dark type on a transparent ground, 300 dpi, cut to its line. */
  async function labelPng(
    text: string,
    fontPt: number,
  ): Promise<{ png: Buffer; width: number; height: number }> {
    const dpi = 300;
    const fontPx = (fontPt * dpi) / 72;
    const measure = createCanvas(10, 10).getContext("2d");
    measure.font = `bold ${fontPx}px "DejaVu Sans"`;
    const width = Math.ceil(measure.measureText(text).width) + 8;
    const height = Math.ceil(fontPx * 1.25);
    const canvas = createCanvas(width, height);
    const c = canvas.getContext("2d");
    c.fillStyle = "#2a1f6e";
    c.font = `bold ${fontPx}px "DejaVu Sans"`;
    c.fillText(text, 4, fontPx);
    return { png: canvas.toBuffer("image/png"), width: (width * 72) / dpi, height: (height * 72) / dpi };
  }

  test("a sidebar's labels, each a one-line image on a shaded box, are read in the sidebar's order", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const column = [
      "Ferry crossings rose by a tenth over the quarter while cargo through the harbour stayed level.",
      "The new timetable adds an early boat on weekdays and a late one on Fridays and Saturdays.",
      "Repairs to the north quay finished in May, two weeks ahead of the plan agreed with the council.",
      "Passenger numbers on the island route doubled during the summer festival and stayed high after it.",
    ].join(" ");
    drawParagraph(page, column, { x: 40, top: 60, width: 380, font: fonts.regular, size: 11 });
    page.drawRectangle({
      x: 440,
      y: PAGE_HEIGHT - 300,
      width: 150,
      height: 250,
      color: rgb(0.93, 0.92, 0.98),
    });
    let top = 70;
    for (const label of ["Target price:", "EUR 8.00", "Share price:", "EUR 7.50"]) {
      const { png, width, height } = await labelPng(label, 11);
      page.drawImage(await pdf.embedPng(png), { x: 452, y: PAGE_HEIGHT - top - height, width, height });
      top += height + 10;
    }

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, ["Target price:", "EUR 8.00", "Share price:", "EUR 7.50"]);
  });
});

describe("pdf layout: text in pictures on text-dense pages", () => {
  const body = [
    "Ferry crossings rose by a tenth over the quarter while cargo through the harbour stayed level.",
    "The new timetable adds an early boat on weekdays and a late one on Fridays and Saturdays.",
    "Repairs to the north quay finished in May, two weeks ahead of the plan agreed with the council.",
    "Passenger numbers on the island route doubled during the summer festival and stayed high after it.",
  ];

  /** A slide-like background covering the page: a dark banner whose words are part of the picture. */
  async function backgroundPng(words: string): Promise<Buffer> {
    const dpi = 150;
    const canvas = createCanvas((PAGE_WIDTH / 72) * dpi, (PAGE_HEIGHT / 72) * dpi);
    const c = canvas.getContext("2d");
    c.fillStyle = "#f2f2f2";
    c.fillRect(0, 0, canvas.width, canvas.height);
    c.fillStyle = "#1d3557";
    c.fillRect(0, 0, canvas.width, 200);
    c.fillStyle = "#ffffff";
    c.font = '52px "DejaVu Sans"';
    c.fillText(words, 640, 150);
    // A pale shape under the body text, as slide backgrounds have.
    c.fillStyle = "#dddddd";
    c.fillRect(80, 600, 300, 900);
    return canvas.toBuffer("image/png");
  }

  test("words in a full-page background picture are read once, with the text layer's text over it", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const background = await pdf.embedPng(await backgroundPng("Harbour Summit 2026"));
    page.drawImage(background, { x: 0, y: 0, width: PAGE_WIDTH, height: PAGE_HEIGHT });
    drawParagraph(page, "Annual Report", { x: 30, top: 30, width: 250, font: fonts.bold, size: 22 });
    body.forEach((text, i) => {
      drawParagraph(page, text, { x: 72, top: 160 + i * 90, width: 468, font: fonts.regular, size: 14 });
    });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, ["Harbour Summit 2026", ...body]);
    for (const text of ["Annual Report", body[0]]) {
      assert.equal(result.markdown.split(text).length - 1, 1, `${text} once in:\n${result.markdown}`);
    }
  });

  test("a picture with words between paragraphs of a text-dense page is read in its place", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawParagraph(page, body.slice(0, 2).join(" "), {
      x: 72,
      top: 72,
      width: 468,
      font: fonts.regular,
      size: 12,
    });
    const picture = await pdf.embedPng(
      await textImage(["Quarterly Harbour Results"], { fontPt: 24, dpi: 150, widthIn: 6.5, heightIn: 1.2 }),
    );
    page.drawImage(picture, { x: 72, y: PAGE_HEIGHT - 180 - 86, width: 468, height: 86 });
    drawParagraph(page, body.slice(2).join(" "), {
      x: 72,
      top: 300,
      width: 468,
      font: fonts.regular,
      size: 12,
    });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, [body[0], "Quarterly Harbour Results", body[2]]);
  });

  /** The rows of text the image test finds in `image`, drawn 432 × 324 pt under `text` on a Letter page. */
  async function imageRowsUnder(text: string, image: Buffer): Promise<unknown[]> {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawParagraph(page, text, { x: 72, top: 72, width: 468, font: fonts.regular, size: 12 });
    page.drawImage(await pdf.embedPng(image), { x: 72, y: 150, width: 432, height: 324 });
    const doc = await openPdf(await pdfBytes(pdf));
    try {
      return (await extractPdfPage(doc, 1, { findImageText: true })).imageText ?? [];
    } finally {
      await closePdf(doc);
    }
  }

  /** A diagram: twelve boxes, each with a short label, over a 10 × 7.5 inch picture at 150 dpi. */
  async function diagramPng(): Promise<Buffer> {
    const canvas = createCanvas(1500, 1125);
    const c = canvas.getContext("2d");
    c.fillStyle = "#ffffff";
    c.fillRect(0, 0, 1500, 1125);
    c.font = '40px "DejaVu Sans"';
    for (let i = 0; i < 12; i++) {
      const x = 80 + (i % 3) * 480;
      const y = 80 + Math.floor(i / 3) * 260;
      c.strokeStyle = "#333333";
      c.lineWidth = 4;
      c.strokeRect(x, y, 360, 120);
      c.fillStyle = "#000000";
      c.fillText(`Stage ${i + 1}`, x + 60, y + 75);
    }
    return canvas.toBuffer("image/png");
  }

  test("a diagram's many labels stay in the figure on a text page, and are read on a sparse one", async () => {
    assert.deepEqual(await imageRowsUnder(body.join(" "), await diagramPng()), []);
    assert.ok((await imageRowsUnder("Notice", await diagramPng())).length >= 8);
  });

  /**
   * A slide's screenshot, 10 × 7.5 inches at 150 dpi: a title bar, a block with a coloured title bar and a
   * shaded body, then two columns of text.
   */
  async function slidePng(): Promise<Buffer> {
    const canvas = createCanvas(1500, 1125);
    const c = canvas.getContext("2d");
    c.fillStyle = "#ffffff";
    c.fillRect(0, 0, 1500, 1125);
    c.fillStyle = "#23238e";
    c.fillRect(0, 0, 1500, 170);
    c.fillStyle = "#ffffff";
    c.font = '64px "DejaVu Sans"';
    c.fillText("Parts of a finite automaton", 80, 110);
    c.fillStyle = "#3333b3";
    c.fillRect(80, 240, 1340, 80);
    c.fillStyle = "#ffffff";
    c.font = '44px "DejaVu Sans"';
    c.fillText("Input tape", 110, 296);
    c.fillStyle = "#e8e8f4";
    c.fillRect(80, 320, 1340, 170);
    c.fillStyle = "#000000";
    c.fillText("The device that holds the word to be read,", 110, 390);
    c.fillText("one symbol in each of its cells.", 110, 455);
    const columns = [
      ["The control unit", "keeps the state", "of the machine."],
      ["The program maps", "a state and symbol", "to the next state."],
    ];
    for (const [k, lines] of columns.entries()) {
      for (const [i, line] of lines.entries()) c.fillText(line, 110 + k * 700, 620 + i * 70);
    }
    return canvas.toBuffer("image/png");
  }

  test("a slide's screenshot on a text page is read, its words in order in the figure's place", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawParagraph(page, body.slice(0, 3).join(" "), {
      x: 72,
      top: 60,
      width: 468,
      font: fonts.regular,
      size: 12,
    });
    page.drawImage(await pdf.embedPng(await slidePng()), {
      x: 90,
      y: PAGE_HEIGHT - 190 - 324,
      width: 432,
      height: 324,
    });
    drawParagraph(page, body[3], { x: 72, top: 540, width: 468, font: fonts.regular, size: 12 });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, [
      body[2],
      "Parts of a finite automaton",
      "Input tape",
      "The device that holds the word to be read",
      "keeps the state",
      "a state and symbol",
      body[3],
    ]);
  });

  test("a picture without words (a chart) is not sent to OCR", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawParagraph(page, body.join(" "), { x: 72, top: 72, width: 468, font: fonts.regular, size: 12 });
    page.drawImage(await pdf.embedPng(await chartPng(400, 200)), { x: 72, y: 200, width: 400, height: 200 });
    const doc = await openPdf(await pdfBytes(pdf));
    try {
      const geometry = await extractPdfPage(doc, 1, { findImageText: true });
      assert.equal(geometry.images.length, 1);
      assert.deepEqual(geometry.imageText, []);
    } finally {
      await closePdf(doc);
    }
  });
});

describe("pdf layout: glyphs without characters", () => {
  test("a title in a Type3 font without ToUnicode is read by OCR in its place; no stray characters", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    typeThreeLine(pdf, page, "HARBOUR", fonts.bold, { x: 72, top: 90, size: 32 });
    const body = "Ferry crossings rose by a tenth over the quarter while cargo stayed level.";
    drawParagraph(page, body, { x: 72, top: 200, width: 468, font: fonts.regular, size: 14 });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, ["HARBOUR", body]);
    const stray = [...result.markdown].filter((c) => c === "\uFFFD" || (/\p{Cc}/u.test(c) && c !== "\n"));
    assert.deepEqual(stray, [], result.markdown);
  });
});

describe("pdf layout: CID glyphs known only by their ids", () => {
  test("a title in a CID font without ToUnicode (a subset without cmap) is read whole by OCR in its place", async () => {
    const { pdf, fonts } = await newPdf();
    pdf.registerFontkit(fontkit);
    const serif = await pdf.embedFont(readFileSync("/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"), {
      subset: true,
    });
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    // Glyph ids 9 to 13 (T, E, L, Y here) are codes pdf.js turns into spaces or drops: the word must still be whole.
    page.drawText("HARBOUR QUARTERLY", { x: 72, y: PAGE_HEIGHT - 110, size: 30, font: serif });
    const body = "Ferry crossings rose by a tenth over the quarter while cargo stayed level.";
    drawParagraph(page, body, { x: 72, top: 200, width: 468, font: fonts.regular, size: 14 });
    const saved = await PDFDocument.load(await pdfBytes(pdf));
    let stripped = 0;
    for (const [, object] of saved.context.enumerateIndirectObjects()) {
      if (object instanceof PDFDict && object.get(PDFName.of("Subtype")) === PDFName.of("Type0")) {
        object.delete(PDFName.of("ToUnicode"));
        stripped++;
      }
    }
    assert.equal(stripped, 1);

    const result = await parsePdf(await saved.save());
    assertInOrder(result.markdown, ["HARBOUR QUARTERLY", body]);
    const stray = [...result.markdown].filter((c) => c === "\uFFFD" || (/\p{Cc}/u.test(c) && c !== "\n"));
    assert.deepEqual(stray, [], result.markdown);
  });
});

describe("pdf layout: glyphs without characters, public", () => {
  test("redp5110's Highlights box, set in a font whose glyphs map to no characters, is read", {
    skip: NO_CORPUS,
  }, async () => {
    const file = corpusPath("docling/tests/data/pdf/sources/redp5110_sampled.pdf");
    const result = await parsePdf(new Uint8Array(readFileSync(file)));
    const box = result.markdown.slice(result.markdown.indexOf("Highlights"));
    assert.match(box, /performance of your database operations/, box.slice(0, 600));
    assert.doesNotMatch(result.markdown, /^! " #$/m);
  });
});

describe("pdf layout: reading order", () => {
  test("a grid of cards is read card by card, row by row, each card's text whole", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const cards = [
      ["Harbour", "Ferries leave the harbour every hour from early morning until late at night."],
      ["Museum", "The maritime museum shows models of the boats built on this coast since 1800."],
      ["Market", "Fishmongers and bakers fill the square on Saturdays from eight until noon."],
      ["Lighthouse", "Guided climbs to the lamp room run on weekends when the weather is calm."],
      ["Beaches", "Two sandy beaches lie within a short walk of the station and the old town."],
      ["Gardens", "The walled gardens behind the castle open to visitors from April to October."],
    ];
    cards.forEach(([title, text], i) => {
      const x = 40 + (i % 3) * 180;
      const top = 100 + Math.floor(i / 3) * 200;
      page.drawRectangle({
        x,
        y: PAGE_HEIGHT - top - 170,
        width: 165,
        height: 170,
        color: rgb(0.9, 0.93, 0.97),
      });
      drawParagraph(page, title, { x: x + 10, top: top + 12, width: 145, font: fonts.bold, size: 13 });
      drawParagraph(page, text, { x: x + 10, top: top + 40, width: 145, font: fonts.regular, size: 10 });
    });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, cards.flat());
  });

  test("a full-width figure between two column sets: the columns above, the figure, then the columns below", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const para = (words: string) =>
      `${words} is described here in a paragraph of ordinary prose that runs over several lines of the column.`;
    const upperLeft = para("The upper left part of the article");
    const upperRight = para("The upper right part of the article");
    const lowerLeft = para("The lower left part of the article");
    const lowerRight = para("The lower right part of the article");
    const column = (x: number, top: number, text: string) =>
      drawParagraph(page, text, { x, top, width: 220, font: fonts.regular, size: 11 });
    column(72, 80, upperLeft);
    column(320, 80, upperRight);
    const chart = await pdf.embedPng(await chartPng(468, 200));
    page.drawImage(chart, { x: 72, y: PAGE_HEIGHT - 200 - 200, width: 468, height: 200 });
    drawParagraph(page, "Figure 1. Ferry crossings per month.", {
      x: 72,
      top: 410,
      width: 468,
      font: fonts.regular,
      size: 10,
    });
    column(72, 440, lowerLeft);
    column(320, 440, lowerRight);

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, [
      upperLeft,
      upperRight,
      "<!-- image -->",
      "Figure 1. Ferry crossings per month.",
      lowerLeft,
      lowerRight,
    ]);
  });

  test("a sidebar beside the main column is read whole, after the main column's text", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const main = [
      "The main column tells the story of the harbour over two long paragraphs of ordinary prose set in the body size.",
      "Its second paragraph goes on with the story of the ferries and the fishing boats that used the harbour for centuries.",
    ];
    let top = 90;
    for (const text of main)
      top = drawParagraph(page, text, { x: 72, top, width: 300, font: fonts.regular, size: 11 }).next;
    const side =
      "Did you know? The harbour wall was rebuilt in stone after the great storm of the winter of 1881.";
    page.drawRectangle({
      x: 400,
      y: PAGE_HEIGHT - 90 - 120,
      width: 150,
      height: 120,
      color: rgb(0.95, 0.95, 0.85),
    });
    drawParagraph(page, side, { x: 408, top: 98, width: 134, font: fonts.regular, size: 9 });

    const result = await parsePdf(await pdfBytes(pdf));
    assertInOrder(result.markdown, [...main, side]);
  });
});

describe("pdf layout: furniture on a single page", () => {
  test("a chart's axis ticks, a figure caption and footnotes in the bottom band stay content; the page number goes", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const body =
      "The number of ferry crossings grew steadily over the year, as the chart at the foot of this page shows.";
    drawParagraph(page, body, { x: 72, top: 90, width: 468, font: fonts.regular, size: 11 });
    const more =
      "Freight stayed level through the winter and rose again in the spring, when the new quay opened to lorries.";
    drawParagraph(page, more, { x: 72, top: 140, width: 468, font: fonts.regular, size: 11 });
    // The chart reaches into the bottom band; its ticks are drawn as text under it, its caption under them.
    const chart = await pdf.embedPng(await chartPng(400, 150));
    page.drawImage(chart, { x: 106, y: PAGE_HEIGHT - 660, width: 400, height: 150 });
    const ticks = ["2", "4", "6", "8", "10"];
    ticks.forEach((tick, i) => {
      drawLine(page, tick, 120 + i * 90, 680, fonts.regular, 8);
    });
    const caption = "Figure 3. Ferry crossings per month, in thousands.";
    drawLine(page, caption, 200, 700, fonts.regular, 8);
    const notes = ["1 Counted at the harbour office.", "2 Excluding the winter timetable."];
    notes.forEach((note, i) => {
      drawLine(page, note, 72, 728 + i * 10, fonts.regular, 8);
    });
    drawLine(page, "7", 303, 764, fonts.regular, 9);

    const result = await parsePdf(await pdfBytes(pdf), {
      ignore_sections: ["page_header", "page_footer", "page_number"],
    });
    assertInOrder(result.markdown, [body, more]);
    for (const text of [caption, ...notes])
      assert.ok(result.markdown.includes(text), `${text} in:\n${result.markdown}`);
    for (const tick of ticks) assert.match(result.markdown, new RegExp(`(^|\\D)${tick}(\\D|$)`));
    const all = await parsePdf(await pdfBytes(pdf), { ignore_sections: [] });
    const numbers = (all.pages[0].page_fragments ?? []).filter((f) => f.fragment_type === "page_number");
    assert.deepEqual(
      numbers.map((f) => f.content.content),
      ["7"],
    );
  });
});

describe("pdf layout: ruled tables whose rules group rows", () => {
  const black = rgb(0, 0, 0);
  const hLine = (page: PDFPage, x1: number, x2: number, top: number) =>
    page.drawLine({
      start: { x: x1, y: PAGE_HEIGHT - top },
      end: { x: x2, y: PAGE_HEIGHT - top },
      thickness: 0.8,
      color: black,
    });
  const vLine = (page: PDFPage, x: number, top: number, bottom: number) =>
    page.drawLine({
      start: { x, y: PAGE_HEIGHT - top },
      end: { x, y: PAGE_HEIGHT - bottom },
      thickness: 0.8,
      color: black,
    });
  /** The table's rows as the markdown gives them, cells folded to their words. */
  const rowsOf = (markdown: string) => markdownRows(markdown).map((row) => row.filter((cell) => cell !== ""));

  test("a rule every three rows of a statistics table: each line is a row of its own", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const widths = [120, 90, 90, 90];
    const rows = [
      ["Region", "Permits", "Handgun", "Long gun"],
      ["North", "1,204", "310", "95"],
      ["South", "2,818", "1,022", "407"],
      ["East", "604", "87", "12"],
      ["West", "3,391", "1,940", "733"],
      ["Islands", "45", "9", "3"],
      ["Capital", "5,120", "2,004", "118"],
      ["Valley", "812", "240", "61"],
      ["Coast", "1,377", "508", "230"],
      ["Hills", "299", "41", "7"],
      ["Lakes", "2,046", "733", "190"],
      ["Plains", "958", "302", "88"],
      ["Forest", "174", "26", "5"],
    ];
    const top = 120;
    const rowHeight = 16;
    drawGridText(page, rows, { x: 72, top, widths, rowHeight, fonts, header: true });
    const right = 72 + widths.reduce((a, b) => a + b, 0);
    // Rules: the frame, under the header, and after every third data row only.
    for (const r of [0, 1, 4, 7, 10, 13]) hLine(page, 72, right, top + r * rowHeight);
    let x = 72;
    for (let c = 0; c <= widths.length; c++) {
      vLine(page, x, top, top + 13 * rowHeight);
      x += widths[c] ?? 0;
    }
    const result = await parsePdf(await pdfBytes(pdf));
    const got = rowsOf(result.markdown);
    for (const row of rows.slice(1)) {
      const want = row.map((cell) => plainWords(cell).join(" "));
      assert.ok(
        got.some((cells) => cells.join("|") === want.join("|")),
        `${row.join(" | ")} in:\n${result.markdown}`,
      );
    }
  });

  test("a ledger ruled in its header only, empty date columns between name and description: cells stay apart", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const widths = [120, 60, 60, 160, 70];
    const header = ["Payee", "Start", "End", "Description", "Amount"];
    const body = [
      ["Harbour Master", "", "", "Wages for May", "1,250.00"],
      ["Quay Office", "", "", "Rent of the office", "420.50"],
      ["Ferry Lines", "", "", "Crossings for staff", "96.00"],
      ["Pilot Service", "", "", "Pilotage in April", "310.75"],
    ];
    const top = 120;
    const rowHeight = 16;
    drawGridText(page, [header, ...body], { x: 72, top, widths, rowHeight, fonts, header: true });
    const right = 72 + widths.reduce((a, b) => a + b, 0);
    const bottom = top + 5 * rowHeight;
    for (const y of [top, top + rowHeight, bottom]) hLine(page, 72, right, y);
    // Column rules in the header; the body is one box around its rows.
    let x = 72;
    for (let c = 0; c <= widths.length; c++) {
      vLine(page, x, top, c === 0 || c === widths.length ? bottom : top + rowHeight);
      x += widths[c] ?? 0;
    }
    const result = await parsePdf(await pdfBytes(pdf));
    const got = rowsOf(result.markdown);
    for (const row of body) {
      const want = row.filter((cell) => cell !== "").map((cell) => plainWords(cell).join(" "));
      assert.ok(
        got.some((cells) => cells.join("|") === want.join("|")),
        `${want.join(" | ")} in:\n${result.markdown}`,
      );
    }
  });
});

describe("pdf layout: notes and lines that were not wrapped", () => {
  test("a one-line footnote at the foot of a single page stays content, its raised marker a word apart", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawLine(page, "Harbour Report", 72, 40, fonts.regular, 8);
    const body =
      "The harbour counted more ferry crossings this year than in any year before, a rise the note below explains.";
    drawParagraph(page, body, { x: 72, top: 90, width: 468, font: fonts.regular, size: 11 });
    // The note's marker: 6 pt, raised 3 pt above the note's baseline, touching its first word.
    const note = "Counted at the harbour office from the ferry company's own timetables.";
    const marker = fonts.regular.widthOfTextAtSize("1", 6);
    drawLine(page, "1", 72, 736, fonts.regular, 6);
    drawLine(page, note, 72 + marker, 738, fonts.regular, 8);
    const result = await parsePdf(await pdfBytes(pdf), {
      ignore_sections: ["page_header", "page_footer", "page_number"],
    });
    assert.ok(result.markdown.includes(`1 ${note}`), result.markdown);
    assert.ok(!result.markdown.includes("Harbour Report"), result.markdown);
  });

  test("an address set close under a name in large type at the foot of a single page stays content", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const body =
      "The new sequencer records every track in perfect time and plays it back with all its timing errors corrected.";
    drawParagraph(page, body, { x: 72, top: 90, width: 468, font: fonts.regular, size: 11 });
    drawLine(page, "Harbour Instruments", 370, 712, fonts.bold, 20);
    const address = "18720 Oxnard Street, Tarzana, CA 91356";
    drawLine(page, address, 372, 740, fonts.regular, 8);
    // The telephone number's area code opening the last line is no list enumerator to drop.
    drawLine(page, "(818) 708-8131 TELEX 298949", 372, 750, fonts.regular, 8);
    const result = await parsePdf(await pdfBytes(pdf), {
      ignore_sections: ["page_header", "page_footer", "page_number"],
    });
    assertInOrder(result.markdown, [body, "Harbour Instruments", address, "(818) 708-8131 TELEX 298949"]);
  });

  test("a footer line under a page whose body is a ruled table is furniture: small beside the table's text", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    drawLine(page, "Harbour timetable", 72, 60, fonts.bold, 20);
    const rows = [
      ["Sailing", "Departs", "Arrives"],
      ["Morning ferry", "07:15", "08:05"],
      ["Midday ferry", "12:30", "13:20"],
      ["Evening ferry", "18:45", "19:35"],
    ];
    const grid = { x: 72, top: 110, widths: [200, 120, 120], rows: rows.length, rowHeight: 24 };
    drawGrid(page, grid);
    drawGridText(page, rows, { ...grid, fonts, header: true });
    // The footer: 8 pt, on the page's last line, set far apart from the table but above the bottom eighth.
    const footer = "Harbour Guide to Timetables and Fares";
    drawLine(page, footer, 100, 680, fonts.regular, 8);
    const result = await parsePdf(await pdfBytes(pdf), {
      ignore_sections: ["page_header", "page_footer", "page_number"],
    });
    assert.ok(!result.markdown.includes(footer), result.markdown);
    assert.ok(result.markdown.includes("Morning ferry"), result.markdown);
    // Kept when furniture is not asked to go.
    const all = await parsePdf(await pdfBytes(pdf), { ignore_sections: [] });
    const footers = (all.pages[0].page_fragments ?? []).filter((f) => f.fragment_type === "page_footer");
    assert.deepEqual(
      footers.map((f) => f.content.content),
      [footer],
    );
  });

  test("sideways labels in a drawn strip of boxes stay; a sideways stamp in the other margin goes", async () => {
    const { pdf, fonts } = await newPdf();
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    const body =
      "The drawing's title block and its strip of approval boxes are filled in by hand after printing.";
    drawParagraph(page, body, { x: 90, top: 90, width: 420, font: fonts.regular, size: 11 });
    // The strip: a column of boxes 14 pt wide along the left edge, a label set sideways in each.
    const black = rgb(0, 0, 0);
    const boxes = [
      ["Inv. No. orig.", 560, 700],
      ["Signed and dated", 420, 560],
    ] as const;
    for (const [label, top, bottom] of boxes) {
      page.drawRectangle({
        x: 20,
        y: PAGE_HEIGHT - bottom,
        width: 14,
        height: bottom - top,
        borderColor: black,
        borderWidth: 0.8,
      });
      page.drawText(label, {
        x: 30,
        y: PAGE_HEIGHT - bottom + 8,
        size: 8,
        font: fonts.regular,
        rotate: degrees(90),
        color: black,
      });
    }
    // A download stamp up the right edge, in no box.
    const stamp = "Downloaded from the archive on 12 March 2021";
    page.drawText(stamp, { x: 596, y: 300, size: 8, font: fonts.regular, rotate: degrees(90), color: black });
    const result = await parsePdf(await pdfBytes(pdf), {
      ignore_sections: ["page_header", "page_footer", "page_number"],
    });
    for (const [label] of boxes) assert.ok(result.markdown.includes(label), result.markdown);
    assert.ok(!result.markdown.includes("Downloaded from the archive"), result.markdown);
  });

  test("Japanese lines: a heading that stops short is not run into the paragraph under it", async () => {
    const { pdf } = await newPdf();
    // Noto Sans CJK (fonts-noto-cjk, in install.sh's test packages): its Japanese face out of the collection.
    pdf.registerFontkit({
      create: (bytes: Uint8Array) => fontkit.create(bytes, "NotoSansCJKjp-Regular"),
    } as never);
    const font = await pdf.embedFont(readFileSync("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"), {
      subset: true,
    });
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    // Set as a notice sets them: heading, wrapped paragraph and next heading one line pitch apart.
    const lines = [
      "１．１ 絶縁電線関係",
      "ポリエチレン絶縁電線に裸線をより合わせて引込用に使用されるデュプ",
      "レックス絶縁電線又はトリプレックス絶縁電線と称されるものは、絶縁電",
      "線に該当しないと解釈し、対象外として取り扱う。",
      "１．２ ケーブル関係",
    ];
    lines.forEach((line, i) => {
      drawLine(page, line, 72, 100 + i * 15, font, 12);
    });
    const result = await parsePdf(await pdfBytes(pdf));
    const words = plainWords(result.markdown);
    assert.ok(words.includes("絶縁電線関係"), result.markdown);
    assert.ok(words.includes("ケーブル関係"), result.markdown);
    // The wrapped paragraph is joined without spaces: its words run across the line ends.
    const wrapped =
      "ポリエチレン絶縁電線に裸線をより合わせて引込用に使用されるデュプレックス絶縁電線又はトリプレックス絶縁電線と称されるものは";
    assert.ok(words.includes(wrapped), result.markdown);
    assert.ok(words.includes("絶縁電線に該当しないと解釈し"), result.markdown);
  });
});
