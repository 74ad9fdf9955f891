import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "../pdf/test-pdf.ts";

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
