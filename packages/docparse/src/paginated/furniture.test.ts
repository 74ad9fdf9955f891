import assert from "node:assert/strict";
import { test } from "node:test";
import type { Box } from "../model.ts";
import {
  detectFurniture,
  edgeBlocks,
  type FurnitureCandidate,
  ruledBothSides,
  textBodySize,
} from "./furniture.ts";

const PAGE = { width: 612, height: 792 };
const BODY_SIZE = 10;

function candidate(page: number, text: string, box: Box, options: Partial<FurnitureCandidate> = {}) {
  return {
    page,
    pageSize: PAGE,
    box,
    text,
    fontSize: BODY_SIZE,
    heading: false,
    pageNumber: false,
    edge: null,
    ...options,
  } satisfies FurnitureCandidate;
}

const LONG_PARAGRAPH =
  "The paragraph goes on for several lines of body text in the usual size, and nothing about it says that it " +
  "is anything but part of the document's content, although it happens to sit near the foot of the page.";

/** Each page's body: a paragraph in the middle of the page. */
const bodies = (pages: number) =>
  Array.from({ length: pages }, (_, i) =>
    candidate(i + 1, LONG_PARAGRAPH, { x1: 50, y1: 300, x2: 560, y2: 400 }),
  );

test("the same header on every page, its page number aside, is a page header", () => {
  const headers = [1, 2, 3].map((page) =>
    candidate(
      page,
      `Annual Report 2024, page ${page + 1}`,
      { x1: 50, y1: 30, x2: 300, y2: 38 },
      { fontSize: 8 },
    ),
  );
  const kinds = detectFurniture([...headers, ...bodies(3)], BODY_SIZE, 3);
  assert.deepEqual([...kinds.entries()].sort(), [
    [0, "page_header"],
    [1, "page_header"],
    [2, "page_header"],
  ]);
});

test("a repeated header in body size and longer than a short line is still a page header", () => {
  const text = "Proceedings of the Workshop on Synthetic Documents and Their Layout, Volume 7";
  const headers = [1, 2, 3].map((page) => candidate(page, text, { x1: 50, y1: 50, x2: 560, y2: 60 }));
  const kinds = detectFurniture([...headers, ...bodies(3)], BODY_SIZE, 3);
  assert.deepEqual(
    [0, 1, 2].map((i) => kinds.get(i)),
    ["page_header", "page_header", "page_header"],
  );
});

test("the same footer at the bottom of every page is a page footer; a page number a page number", () => {
  const footers = [1, 2, 3].map((page) =>
    candidate(page, "Confidential, do not distribute", { x1: 50, y1: 750, x2: 250, y2: 758 }),
  );
  const numbers = [1, 2, 3].map((page) =>
    candidate(page, String(page), { x1: 300, y1: 765, x2: 306, y2: 773 }, { pageNumber: true }),
  );
  const kinds = detectFurniture([...footers, ...numbers, ...bodies(3)], BODY_SIZE, 3);
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((i) => kinds.get(i)),
    ["page_footer", "page_footer", "page_footer", "page_number", "page_number", "page_number"],
  );
});

test("body text that merely sits low on one page is not furniture", () => {
  const low = candidate(2, LONG_PARAGRAPH, { x1: 50, y1: 700, x2: 560, y2: 760 }, { edge: "bottom" });
  const kinds = detectFurniture([...bodies(3), low], BODY_SIZE, 3);
  assert.equal(kinds.get(3), undefined);
  assert.equal(kinds.size, 0);
});

test("a heading at the top of a single page is not furniture", () => {
  const heading = candidate(
    2,
    "Chapter Two",
    { x1: 50, y1: 40, x2: 200, y2: 58 },
    { fontSize: 18, heading: true, edge: "top" },
  );
  const kinds = detectFurniture([...bodies(3), heading], BODY_SIZE, 3);
  assert.equal(kinds.get(3), undefined);
});

test("a small line hugging the page's top edge is a page header even on a single page", () => {
  const header = candidate(
    1,
    "Draft of 3 May",
    { x1: 50, y1: 20, x2: 130, y2: 27 },
    { fontSize: 7, edge: "top" },
  );
  const kinds = detectFurniture([header, ...bodies(1)], BODY_SIZE, 1);
  assert.equal(kinds.get(0), "page_header");
});

test("text repeated in the middle of pages is not furniture", () => {
  const repeated = [1, 2, 3].map((page) =>
    candidate(page, "Continued", { x1: 50, y1: 400, x2: 120, y2: 410 }),
  );
  assert.equal(detectFurniture(repeated, BODY_SIZE, 3).size, 0);
});

test("a repeated header that moves by less than a point between pages is still a page header", {}, () => {
  const text = "Proceedings of the Workshop on Synthetic Documents and Their Layout, Volume 7";
  const headers = [59.0, 59.2, 59.8].map((y1, i) =>
    candidate(i + 1, text, { x1: 50, y1, x2: 560, y2: y1 + 10 }),
  );
  const kinds = detectFurniture([...headers, ...bodies(3)], BODY_SIZE, 3);
  assert.deepEqual(
    [0, 1, 2].map((i) => kinds.get(i)),
    ["page_header", "page_header", "page_header"],
  );
});

test("edgeBlocks marks a small line set apart at the top of the page", () => {
  const boxes: Box[] = [
    { x1: 50, y1: 30, x2: 200, y2: 37 },
    { x1: 50, y1: 80, x2: 560, y2: 200 },
    { x1: 50, y1: 220, x2: 560, y2: 400 },
  ];
  assert.deepEqual(edgeBlocks(boxes, [7, 10, 10], PAGE.height), ["top", null, null]);
});

test("edgeBlocks counts a block set a little higher, level with the lowest, on the bottom line", () => {
  // A scan's foot: a folio at the left 2.5 pt above the date stamp at the right, both well under the text.
  const boxes: Box[] = [
    { x1: 50, y1: 80, x2: 560, y2: 700 },
    { x1: 10, y1: 753.5, x2: 38, y2: 761.8 },
    { x1: 510, y1: 756, x2: 586, y2: 764.3 },
  ];
  assert.deepEqual(edgeBlocks(boxes, [10, 10, 10], PAGE.height), [null, "bottom", "bottom"]);
});

test("edgeBlocks marks every block of the top line and the bottom line", () => {
  const boxes: Box[] = [
    { x1: 50, y1: 30, x2: 200, y2: 37 },
    { x1: 400, y1: 31, x2: 560, y2: 38 },
    { x1: 50, y1: 80, x2: 560, y2: 700 },
    { x1: 300, y1: 760, x2: 310, y2: 768 },
  ];
  assert.deepEqual(edgeBlocks(boxes, [7, 7, 10, 8], PAGE.height), ["top", "top", null, "bottom"]);
});

test("edgeBlocks leaves a top line close to the text below it alone", () => {
  const boxes: Box[] = [
    { x1: 50, y1: 30, x2: 200, y2: 40 },
    { x1: 50, y1: 42, x2: 560, y2: 200 },
  ];
  assert.deepEqual(edgeBlocks(boxes, [10, 10], PAGE.height), [null, null]);
});

test("edgeBlocks leaves a first line below the top fifth of the page alone", () => {
  const boxes: Box[] = [
    { x1: 50, y1: 200, x2: 200, y2: 210 },
    { x1: 50, y1: 260, x2: 560, y2: 400 },
  ];
  assert.deepEqual(edgeBlocks(boxes, [10, 10], PAGE.height), [null, null]);
});

test("edgeBlocks needs two blocks", () => {
  assert.deepEqual(edgeBlocks([{ x1: 50, y1: 30, x2: 200, y2: 40 }], [10], PAGE.height), [null]);
});

test("a short last paragraph a paragraph gap below the text is not furniture", {}, () => {
  const boxes: Box[] = [
    { x1: 50, y1: 80, x2: 560, y2: 688 },
    { x1: 50, y1: 700, x2: 300, y2: 710 },
  ];
  const edges = edgeBlocks(boxes, [10, 10], PAGE.height);
  const candidates = [
    candidate(2, LONG_PARAGRAPH, boxes[0], { edge: edges[0] }),
    candidate(2, "That is all there is to say about it.", boxes[1], { edge: edges[1] }),
  ];
  assert.equal(detectFurniture(candidates, BODY_SIZE, 3).get(1), undefined);
});

test("on a single page, lines that say what they are in the top or bottom band are furniture, in body size too", () => {
  const lines = [
    candidate(1, "Journal of Synthetic Layouts | Vol. 12 | No. 3 | 2024", {
      x1: 50,
      y1: 30,
      x2: 400,
      y2: 40,
    }),
    candidate(1, "Downloaded from https://example.org/journal on 12 March 2024", {
      x1: 50,
      y1: 740,
      x2: 400,
      y2: 750,
    }),
    candidate(1, "© 2024 The Authors. Published under CC BY 4.0.", { x1: 50, y1: 755, x2: 400, y2: 765 }),
    candidate(1, "Part No. 123-4567 Rev. C", { x1: 400, y1: 770, x2: 560, y2: 780 }),
  ];
  const kinds = detectFurniture([...lines, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual(
    [0, 1, 2, 3, 4].map((i) => kinds.get(i)),
    ["page_header", "page_footer", "page_footer", "page_footer", undefined],
  );
});

test("the same lines in the middle of the page are body text", () => {
  const lines = [
    candidate(1, "Journal of Synthetic Layouts | Vol. 12 | No. 3 | 2024", {
      x1: 50,
      y1: 300,
      x2: 400,
      y2: 310,
    }),
    candidate(1, "© 2024 The Authors. Published under CC BY 4.0.", { x1: 50, y1: 420, x2: 400, y2: 430 }),
  ];
  assert.equal(detectFurniture(lines, BODY_SIZE, 1).size, 0);
});

test("the first line of a column, at the page's top in body size, is not a page header", () => {
  // It is the top of a column that goes on just below it, not a label set apart.
  const first = candidate(1, "the most common ranges in size for No. 6 up to 1/4 inch, the", {
    x1: 320,
    y1: 43,
    x2: 558,
    y2: 55,
  });
  assert.equal(detectFurniture([first, ...bodies(1)], BODY_SIZE, 1).size, 0);
});

test("text set sideways in a side margin is furniture; sideways text inside the page is not", () => {
  const stamp = candidate(
    1,
    "jdoe on PRODSERVER with PROPOSALS",
    { x1: 18, y1: 500, x2: 24, y2: 770 },
    { sideways: true },
  );
  const label = candidate(1, "Axis label", { x1: 300, y1: 400, x2: 306, y2: 460 }, { sideways: true });
  const kinds = detectFurniture([stamp, label, ...bodies(1)], BODY_SIZE, 1);
  assert.equal(kinds.get(0), "page_footer");
  assert.equal(kinds.has(1), false);
});

test("on a single page, a small figure caption on the page's last line is content, not a page footer", () => {
  const caption = candidate(
    1,
    "Fig. 5. Crossings per month.",
    { x1: 160, y1: 740, x2: 300, y2: 747 },
    { fontSize: 7, edge: "bottom", caption: true },
  );
  const footer = candidate(
    1,
    "Harbour report, draft",
    { x1: 50, y1: 770, x2: 150, y2: 777 },
    { fontSize: 7 },
  );
  const kinds = detectFurniture([caption, footer, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([kinds.get(0), kinds.get(1)], [undefined, "page_footer"]);
});

test("footnotes at the foot of a single page are content; one small line there is still a footer", () => {
  const notes = candidate(
    1,
    "1 2021 estimate 2 2020 estimate 3 2020 estimate",
    { x1: 72, y1: 735, x2: 140, y2: 770 },
    { fontSize: 7, edge: "bottom", lines: ["1 2021 estimate", "2 2020 estimate", "3 2020 estimate"] },
  );
  const stamp = candidate(
    1,
    "1 printed copy",
    { x1: 400, y1: 775, x2: 480, y2: 782 },
    { fontSize: 7, edge: "bottom", lines: ["1 printed copy"] },
  );
  const kinds = detectFurniture([notes, stamp, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([kinds.get(0), kinds.get(1)], [undefined, "page_footer"]);
});

test("a chart's axis ticks in the bottom band are not page numbers; the page number alone on its line is", () => {
  const ticks = ["2", "4", "6", "8"].map((tick, i) =>
    candidate(
      1,
      tick,
      { x1: 120 + i * 46, y1: 700, x2: 124 + i * 46, y2: 706 },
      { fontSize: 6, pageNumber: true },
    ),
  );
  // The vertical axis: numbers stacked at one right edge.
  const stacked = ["10", "20", "30"].map((tick, i) =>
    candidate(
      1,
      tick,
      { x1: 100, y1: 640 + i * 20, x2: 108, y2: 646 + i * 20 },
      { fontSize: 6, pageNumber: true },
    ),
  );
  const number = candidate(
    1,
    "12",
    { x1: 300, y1: 770, x2: 308, y2: 778 },
    { fontSize: 8, pageNumber: true },
  );
  const kinds = detectFurniture([...ticks, ...stacked, number, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([...kinds.entries()].sort(), [[7, "page_number"]]);
});

test("one footnote wrapped over lines at the foot of a single page is content; a two-line address there is a footer", () => {
  const lines = [
    "1 Projects valued at $6M or greater, in Europe and the United States, that were",
    "completed satisfactorily, on time, and within budget. From The Standish Group's",
    "“Haze,” based on their CHAOS database.",
  ];
  const note = candidate(
    1,
    lines.join(" "),
    { x1: 72, y1: 730, x2: 420, y2: 765 },
    {
      fontSize: 7,
      edge: "bottom",
      lines,
    },
  );
  const address = candidate(
    1,
    "1800 F Street NW Washington, DC 20405",
    { x1: 450, y1: 745, x2: 560, y2: 765 },
    {
      fontSize: 7,
      edge: "bottom",
      lines: ["1800 F Street NW", "Washington, DC 20405"],
    },
  );
  const kinds = detectFurniture([note, address, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([kinds.get(0), kinds.get(1)], [undefined, "page_footer"]);
});

test("a year in display type at the top of a single page is a title; a page number in body type there is not", () => {
  const year = candidate(
    1,
    "2007",
    { x1: 42, y1: 31, x2: 120, y2: 68 },
    { fontSize: 36, pageNumber: true, edge: "top" },
  );
  const number = candidate(
    1,
    "7",
    { x1: 550, y1: 30, x2: 556, y2: 40 },
    { fontSize: 9, pageNumber: true, edge: "top" },
  );
  const kinds = detectFurniture([year, number, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([kinds.get(0), kinds.get(1)], [undefined, "page_number"]);
});

test("a one-line footnote at the foot of a single page is content; a journal line or a short label there is not", () => {
  const note = candidate(
    1,
    "1Diese Metrik wird auch „französische Eisenbahnmetrik“ genannt.",
    { x1: 72, y1: 760, x2: 330, y2: 768 },
    {
      fontSize: 7,
      edge: "bottom",
      lines: ["1Diese Metrik wird auch „französische Eisenbahnmetrik“ genannt."],
    },
  );
  const journal = candidate(
    1,
    "2 Journal of Examples, Vol. 12, No. 3, published by the Society.",
    { x1: 72, y1: 775, x2: 330, y2: 782 },
    {
      fontSize: 7,
      edge: "bottom",
      lines: ["2 Journal of Examples, Vol. 12, No. 3, published by the Society."],
    },
  );
  const label = candidate(
    1,
    "3 Annual Report 2024",
    { x1: 400, y1: 775, x2: 480, y2: 782 },
    { fontSize: 7, edge: "bottom", lines: ["3 Annual Report 2024"] },
  );
  const kinds = detectFurniture([note, journal, label, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([kinds.get(0), kinds.get(1), kinds.get(2)], [undefined, "page_footer", "page_footer"]);
});

test("an address set close under a heading at the foot of a single page is content; one set apart is a footer", () => {
  const name = candidate(1, "Linn", { x1: 370, y1: 712, x2: 432, y2: 741 }, { fontSize: 24, heading: true });
  const address = candidate(
    1,
    "Linn Electronics, Inc. 18720 Oxnard Street, Tarzana, CA 91356",
    { x1: 373, y1: 746, x2: 519, y2: 764 },
    { fontSize: 8, lines: ["Linn Electronics, Inc.", "18720 Oxnard Street, Tarzana, CA 91356"] },
  );
  const apart = candidate(
    1,
    "1800 F Street NW Washington, DC 20405",
    { x1: 72, y1: 746, x2: 200, y2: 764 },
    { fontSize: 8, lines: ["1800 F Street NW", "Washington, DC 20405"] },
  );
  const kinds = detectFurniture([name, address, apart, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([kinds.get(0), kinds.get(1), kinds.get(2)], [undefined, undefined, "page_footer"]);
});

test("the text's body size counts every run, a table's cells included, and ignores sideways text", () => {
  const runs = [
    { text: "Sample agenda", fontSize: 20 },
    { text: "The vendor team meets agency staff responsible for the project.", fontSize: 10.1 },
    { text: "Guide 2.0", fontSize: 8 },
    { text: "A long stamp running up the page's edge, set sideways", fontSize: 6, vertical: true },
  ];
  assert.equal(textBodySize(runs), 10);
  assert.equal(textBodySize([]), 0);
});

test("sideways text in a side margin is furniture, unless it sits in a drawn cell (a form's strip of boxes)", () => {
  const stamp = candidate(
    1,
    "arXiv:2004.04906v3 [cs.CL] 30 Sep 2020",
    { x1: 14, y1: 200, x2: 34, y2: 560 },
    {
      sideways: true,
    },
  );
  const label = candidate(
    1,
    "Инв. № подл.",
    { x1: 22, y1: 680, x2: 34, y2: 760 },
    { sideways: true, boxed: true },
  );
  const kinds = detectFurniture([stamp, label, ...bodies(1)], BODY_SIZE, 1);
  assert.deepEqual([kinds.get(0), kinds.get(1)], ["page_header", undefined]);
});

test("ruledBothSides: vertical rules along the block's whole height, close on its left and its right", () => {
  const block = { x1: 22, y1: 680, x2: 34, y2: 760 };
  const v = (x: number, y1: number, y2: number) => ({ x1: x, y1, x2: x, y2, orientation: "v" as const });
  assert.equal(ruledBothSides(block, [v(20, 670, 770), v(40, 600, 790)], 15), true);
  // One side only, a rule too short, or a rule too far: no cell.
  assert.equal(ruledBothSides(block, [v(20, 670, 770)], 15), false);
  assert.equal(ruledBothSides(block, [v(20, 670, 770), v(40, 700, 790)], 15), false);
  assert.equal(ruledBothSides(block, [v(20, 670, 770), v(80, 600, 790)], 15), false);
});
