import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { blockText } from "./blocks.ts";
import type { TextRun } from "./geometry.ts";
import { layoutPage } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

/** Lines of 10 pt text from (x, y) down on a 12 pt pitch. */
function column(lines: string[], x: number, y: number): TextRun[] {
  return lines.map((line, i) =>
    textRun(line, { x1: x, y1: y + i * 12, x2: x + line.length * 5, y2: y + i * 12 + 10 }, { fontSize: 10 }),
  );
}

function pageText(runs: TextRun[]): string {
  const layout = layoutPage(pageGeometry({ runs }), { detectTables: () => [], dropStruck: false });
  return layout.entries
    .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ")
    .replace(/\s+/g, " ");
}

const LEFT = [
  "Vulnerability Disclosures",
  "J. CVD Guides SIGs",
  "K. OSS-SIRT SIG",
  "L. OSV project",
  "M. OpenVEX SIG",
];
const RIGHT = [
  "Identifying Security Threats",
  "P. Security Insights",
  "Q. Risk Dashboard",
  "R. Security Reviews",
];

test("a slide's title level with the top of the column beside it is read first", () => {
  // The title, 31 pt, starts above the left column, whose first lines stand level with its lower half.
  const title = textRun(
    "Working Groups, Projects, & SIGs",
    { x1: 262, y1: 14, x2: 590, y2: 45 },
    { fontSize: 31 },
  );
  const text = pageText([title, ...column(LEFT, 43, 38), ...column(RIGHT, 267, 60)]);
  assert.ok(text.startsWith("Working Groups, Projects, & SIGs"), text);
  assert.ok(text.indexOf("M. OpenVEX SIG") < text.indexOf("Identifying Security Threats"), text);
});

test("a label beside a chapter title, within its height, keeps its place before it", () => {
  const label = textRun("Chapter 1.", { x1: 72, y1: 108, x2: 130, y2: 120 }, { fontSize: 12 });
  const title = textRun(
    "Securing and protecting data",
    { x1: 150, y1: 100, x2: 480, y2: 124 },
    { fontSize: 24 },
  );
  const body = column(
    ["Recent news headlines are filled with reports", "of data breaches and attacks"],
    72,
    150,
  );
  const text = pageText([label, title, ...body]);
  assert.ok(text.indexOf("Chapter 1.") < text.indexOf("Securing and protecting data"), text);
});

test("big figures set apart across a page are no title: each is read with the text under it", () => {
  const figure = (text: string, x: number) =>
    textRun(text, { x1: x, y1: 167, x2: x + 60, y2: 226 }, { fontSize: 45 });
  const caption = (lines: string[], x: number) => column(lines, x, 220);
  const text = pageText([
    figure("2.5", 80),
    ...caption(["kilograms CO2e/boe", "carbon intensity"], 70),
    figure("1st", 274),
    ...caption(["woman", "offshore platform engineer"], 260),
    figure("70%", 440),
    ...caption(["electricity", "production is powered"], 430),
  ]);
  assert.ok(text.indexOf("carbon intensity") < text.indexOf("1st"), text);
  assert.ok(text.indexOf("offshore platform engineer") < text.indexOf("70%"), text);
});

test("the OpenSSF card grid's title is read before its first card", { timeout: 600_000 }, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "openssf-working-groups-slide.pdf"));
  const at = (s: string) => markdown.indexOf(s);
  assert.ok(at("Working Groups, Projects, & SIGs") >= 0, markdown);
  assert.ok(at("Working Groups, Projects, & SIGs") < at("Vulnerability Disclosures"), markdown);
});
