import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";
import { pieAreas, stackedBarAreas } from "./chart-shapes.ts";

const REAL_WORLD = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

/** A bar chart drawn as shapes: a value axis 0–150 at the left, four bars on its baseline, a year under each. */
function barChartPage(): Uint8Array {
  const base = 300;
  const perUnit = 1.2;
  const ticks = [0, 50, 100, 150].map(
    (v) => `BT /F1 10 Tf ${v >= 100 ? 82 : v >= 50 ? 88 : 94} ${base - 3 + v * perUnit} Td (${v}) Tj ET`,
  );
  const grid = [0, 50, 100, 150].map((v) => `110 ${base + v * perUnit} m 500 ${base + v * perUnit} l S`);
  const values = [120, 80, 140, 60];
  const bars = values.map((v, i) => `0.2 0.4 0.8 rg ${140 + i * 90} ${base} 40 ${v * perUnit} re f`);
  const years = values.map((_, i) => `0 g BT /F1 10 Tf ${148 + i * 90} ${base - 16} Td (${2019 + i}) Tj ET`);
  return onePagePdf(
    [
      "BT /F1 16 Tf 72 700 Td (Ferry passengers by year) Tj ET",
      "BT /F1 10 Tf 72 670 Td (The harbour counted its passengers at the pier each summer, as the chart shows.) Tj ET",
      "0.5 G 0.5 w",
      ...grid,
      ...bars,
      "0 g",
      ...ticks,
      ...years,
      "BT /F1 10 Tf 72 200 Td (After the chart, the report goes on about the winter timetable.) Tj ET",
    ].join("\n"),
  );
}

test("a chart's axis numbers and categories are read in one place, after its figure, not a paragraph each", async () => {
  const markdown = await markdownOf(barChartPage());
  assert.match(markdown, /<!-- image -->\n\n150 100 50 0 2019 2020 2021 2022\n/);
  assert.match(markdown, /as the chart shows\.[\s\S]*<!-- image -->[\s\S]*winter timetable/);
});

test("public: the PowerPoint chart slide's labels follow its figure, in one paragraph", async () => {
  const markdown = await markdownOf(readFileSync(`${REAL_WORLD}pptx-chart-slide.pdf`));
  assert.match(markdown, /<!-- image -->\n\n200 150 100 50 0 2019 2020 2021 2022/);
  assert.match(markdown, /## Wild Duck Observations by Year/);
});

/** A wedge of a pie centred at (cx, cy) of radius r from angle a0 to a1 (degrees), as a filled path of curves. */
function wedge(cx: number, cy: number, r: number, a0: number, a1: number, grey: number): string {
  const parts = [`${grey} g ${cx} ${cy} m`];
  const point = (a: number) => [
    cx + r * Math.cos((a * Math.PI) / 180),
    cy + r * Math.sin((a * Math.PI) / 180),
  ];
  const [x0, y0] = point(a0);
  parts.push(`${x0.toFixed(2)} ${y0.toFixed(2)} l`);
  // Quarter turns or less, each a cubic curve with control points at the usual 4/3·tan(θ/4) distance.
  for (let from = a0; from < a1; from += 90) {
    const to = Math.min(from + 90, a1);
    const k = (4 / 3) * Math.tan(((to - from) * Math.PI) / 720) * r;
    const [sx, sy] = point(from);
    const [ex, ey] = point(to);
    const [fr, tr] = [(from * Math.PI) / 180, (to * Math.PI) / 180];
    const c1 = [sx - k * Math.sin(fr), sy + k * Math.cos(fr)];
    const c2 = [ex + k * Math.sin(tr), ey - k * Math.cos(tr)];
    parts.push(`${[...c1, ...c2, ex, ey].map((v) => v.toFixed(2)).join(" ")} c`);
  }
  parts.push("h f");
  return parts.join(" ");
}

/** A page with a pie of four wedges, a label beside each, between two paragraphs. */
function pieChartPage(): Uint8Array {
  const [cx, cy, r] = [300, 450, 80];
  const shares = [
    ["Rail", 0, 140],
    ["Bus", 140, 230],
    ["Ferry", 230, 300],
    ["Bicycle", 300, 360],
  ] as const;
  const labels = shares.map(([name, a0, a1], i) => {
    const mid = (((a0 + a1) / 2) * Math.PI) / 180;
    const [x, y] = [cx + (r + 14) * Math.cos(mid), cy + (r + 14) * Math.sin(mid)];
    return `0 g BT /F1 9 Tf ${(Math.cos(mid) < 0 ? x - 30 : x).toFixed(1)} ${y.toFixed(1)} Td (${name} ${[39, 25, 19, 17][i]}%) Tj ET`;
  });
  return onePagePdf(
    [
      "BT /F1 16 Tf 72 700 Td (How commuters travel) Tj ET",
      "BT /F1 11 Tf 72 670 Td (Most of the town's commuters take the train, as the chart below shows.) Tj ET",
      ...shares.map(([, a0, a1], i) => wedge(cx, cy, r, a0, a1, 0.2 + i * 0.2)),
      ...labels,
      "BT /F1 11 Tf 72 300 Td (After the chart, the report turns to the new cycle lanes.) Tj ET",
    ].join("\n"),
  );
}

/** A page with three stacked bars (three segments each, different totals) on one baseline, a name under each. */
function stackedBarPage(): Uint8Array {
  const base = 350;
  const stacks = [
    [40, 30, 20],
    [60, 20, 35],
    [25, 45, 15],
  ];
  const bars = stacks.flatMap((segments, i) => {
    let y = base;
    return segments.map((h, j) => {
      const op = `${0.2 + j * 0.25} g ${160 + i * 110} ${y} 50 ${h} re f`;
      y += h;
      return op;
    });
  });
  const names = ["North", "Centre", "South"].map(
    (name, i) => `0 g BT /F1 9 Tf ${168 + i * 110} ${base - 14} Td (${name}) Tj ET`,
  );
  return onePagePdf(
    [
      "BT /F1 16 Tf 72 700 Td (Households by district) Tj ET",
      "BT /F1 11 Tf 72 670 Td (Each district's households by size, as the chart below shows.) Tj ET",
      ...bars,
      ...names,
      "BT /F1 9 Tf 160 520 Td (one person) Tj ET",
      "BT /F1 11 Tf 72 250 Td (After the chart, the report turns to the new schools.) Tj ET",
    ].join("\n"),
  );
}

test("a pie's labels are read in one place, after its figure, not a paragraph each", async () => {
  const markdown = await markdownOf(pieChartPage());
  const labels = /<!-- image -->\n\n([^\n]*)\n/.exec(markdown)?.[1] ?? "";
  for (const label of ["Rail 39%", "Bus 25%", "Ferry 19%", "Bicycle 17%"])
    assert.ok(labels.includes(label), markdown);
  assert.match(markdown, /as the chart below shows\.[\s\S]*<!-- image -->[\s\S]*cycle lanes/);
});

test("a stacked bar chart's labels are read in one place, after its figure", async () => {
  const markdown = await markdownOf(stackedBarPage());
  assert.match(markdown, /<!-- image -->\n\n[^\n]*North Centre South/, markdown);
  assert.match(markdown, /as the chart below shows\.[\s\S]*<!-- image -->[\s\S]*new schools/);
});

test("public: a diagram of circles round a hub (ACCIONA's tax page) is no pie", async () => {
  const doc = await openPdf(new Uint8Array(readFileSync(`${REAL_WORLD}acciona-tax-table.pdf`)));
  try {
    const page = await extractPdfPage(doc, 1);
    // Its five shapes fill a square and hold its centre, as wedges do; the hub reaches no edge.
    assert.ok((page.drawings ?? []).length >= 5);
    assert.deepEqual(pieAreas(page), []);
    assert.deepEqual(stackedBarAreas(page), []);
  } finally {
    await closePdf(doc);
  }
});
