import assert from "node:assert/strict";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import { detectFurniture, type FurnitureCandidate } from "./furniture.ts";

// A body text the body runs into at the page's foot is body, not a footer (furniture.ts, partOfBody).

const PAGE = { width: 720, height: 405 };

function line(
  text: string,
  x1: number,
  y1: number,
  options: Partial<FurnitureCandidate> = {},
): FurnitureCandidate {
  return {
    page: 1,
    pageSize: PAGE,
    box: { x1, y1, x2: x1 + 300, y2: y1 + 11 },
    text,
    fontSize: 10,
    heading: false,
    pageNumber: false,
    edge: null,
    ...options,
  };
}

test("the last item of a list running into the page's bottom margin is body; a line set apart there a footer", () => {
  const body = line("A paragraph of body text in the body's size", 60, 100, { fontSize: 11 });
  const items = [330, 341, 352, 363, 374].map((y, i) => line(`Item ${i + 1} of a list in small type`, 80, y));
  // 374 + 11 = 385: the last item lies in the page's bottom 8%, set as small as a footer would be.
  const kinds = detectFurniture([body, ...items], 11, 1);
  assert.equal(kinds.size, 0, JSON.stringify([...kinds]));
  // The same small line on its own in the margin, a gap below the list, is a footer.
  const footer = line("Small print at the page's foot", 80, 392, {
    box: { x1: 80, y1: 392, x2: 380, y2: 401 },
  });
  const alone = detectFurniture([body, ...items.slice(0, 3), footer], 11, 1);
  assert.deepEqual([...alone], [[4, "page_footer"]]);
  // A line of another size right under the list (a footer in smaller type) is not the list's.
  const smaller = { ...footer, fontSize: 8, box: { x1: 80, y1: 385, x2: 380, y2: 393 } };
  assert.deepEqual([...detectFurniture([body, ...items.slice(0, 4), smaller], 11, 1)], [[5, "page_footer"]]);
});

test("a small line level with body text that runs into the bottom margin is body", () => {
  const column = line("The left column's paragraph runs down to the page's foot", 40, 300, {
    fontSize: 11,
    box: { x1: 40, y1: 300, x2: 340, y2: 388 },
  });
  const beside = line("and a note beside it", 380, 377, {
    fontSize: 8,
    box: { x1: 380, y1: 377, x2: 520, y2: 386 },
  });
  assert.equal(detectFurniture([column, beside], 11, 1).size, 0);
  // Beside a block that lies in the band itself (another footer), it is a footer.
  const low = { ...column, box: { x1: 40, y1: 376, x2: 340, y2: 388 }, fontSize: 8 };
  assert.equal(
    detectFurniture([low, beside, line("Body", 40, 100, { fontSize: 11 })], 11, 1).get(1),
    "page_footer",
  );
});

/** A slide: a bullet list in small type whose last items run into the page's bottom 8%. */
async function listSlide(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([720, 405]);
  page.drawText("Roadmap for the coming year", { x: 60, y: 405 - 40, size: 20, font: fonts.bold });
  page.drawText("We shall measure the year's success by these goals:", {
    x: 60,
    y: 405 - 290,
    size: 12,
    font: fonts.regular,
  });
  const goals = [
    "G1 - Publish the survey of the members and its findings",
    "G2 - Have ten schools take part in the programme",
    "G3 - Run four workshops on the new release",
    "G4 - Every team writes an onboarding guide for newcomers",
    "G5 - Each project records a short explainer video",
  ];
  goals.forEach((goal, i) => {
    page.drawText(`- ${goal}`, { x: 80, y: 405 - 312 - i * 13, size: 10, font: fonts.regular });
  });
  return pdf.save();
}

test("a slide's list running into the bottom margin keeps its last items with page furniture ignored", async () => {
  const { result } = await parseDocument({
    bytes: await listSlide(),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ["page_header", "page_footer", "page_number"] } },
  });
  assert.match(result.markdown, /G5 - Each project records a short explainer video/, result.markdown);
});

test("a roadmap slide keeps the last goal of its list, low on the page", { timeout: 600_000 }, async () => {
  await assertPdfFacts("openssf-roadmap-slide.pdf", [
    { present: "EE3 - X TIs will have onboarding documentation and explainer videos" },
  ]);
});
