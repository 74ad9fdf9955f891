import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { type Fact, factHolds, markdownRows } from "../eval/facts.ts";
import { engineMarkdown, plainWords, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { blockText } from "./blocks.ts";
import { layoutPage } from "./layout.ts";
import { pageGeometry, textRun } from "./test-geometry.ts";

test("a card's title band drawn over its top edge is read before the card's items", () => {
  // Two cards in a column, each a body with a coloured title band overlapping its top, the band a little
  // narrower (or wider) than the body, as a slide's grouped shapes are.
  const runs = [
    textRun("Security Tooling", { x1: 110, y1: 104, x2: 200, y2: 114 }),
    textRun("State of the art tools", { x1: 110, y1: 116, x2: 210, y2: 124 }),
    textRun("S. SBOM Everywhere", { x1: 110, y1: 140, x2: 220, y2: 148 }),
    textRun("W. OSS Fuzzing", { x1: 110, y1: 160, x2: 200, y2: 168 }),
    textRun("Supply Chain Integrity", { x1: 112, y1: 234, x2: 230, y2: 244 }),
    textRun("Ensuring provenance", { x1: 112, y1: 246, x2: 220, y2: 254 }),
    textRun("Z. Levels for Artifacts", { x1: 110, y1: 270, x2: 240, y2: 278 }),
    textRun("AB. Secure Consumption", { x1: 110, y1: 290, x2: 240, y2: 298 }),
  ];
  const rects = [
    { x1: 100, y1: 100, x2: 400, y2: 180 },
    { x1: 99, y1: 98, x2: 401, y2: 128 },
    { x1: 100, y1: 232, x2: 400, y2: 310 },
    { x1: 102, y1: 230, x2: 398, y2: 262 },
  ];
  const layout = layoutPage(pageGeometry({ runs, rects }), { detectTables: () => [], dropStruck: false });
  const text = layout.entries
    .flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []))
    .join(" ")
    .replace(/\s+/g, " ");
  const at = (s: string) => text.indexOf(s);
  assert.ok(at("Security Tooling") < at("S. SBOM Everywhere"), text);
  assert.ok(at("W. OSS Fuzzing") < at("Supply Chain Integrity"), text);
  assert.ok(at("Ensuring provenance") < at("Z. Levels for Artifacts"), text);
});

test("a slide's grid of coloured cards reads each card's title before its list", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "openssf-working-groups-slide.pdf"));
  const subject = { words: ` ${plainWords(markdown).join(" ")} `, rows: markdownRows(markdown) };
  const facts: Fact[] = [
    {
      before: [
        "Ensuring the provenance of open source code",
        "Z. Supply-chain Levels for Software Artifacts",
      ],
    },
    { before: ["End Users WG", "AH. Supply Chain Attack taxonomy SIG"] },
    { before: ["Securing Software Repositories", "AG. Survey of OSS Repos SIG"] },
  ];
  for (const fact of facts) assert.ok(factHolds(fact, subject), `${JSON.stringify(fact)} in:\n${markdown}`);
});
