import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { HELVETICA, onePagePdf } from "../pdf/test-pdf.ts";
import { layoutPage } from "./layout.ts";

/** The bullets' font: one of their own, as a slide export draws them (one run for each bullet). */
const COURIER = "<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>";

test("a slide's bullet set well before its item's text opens the item's line, not a line of its own", async () => {
  // 11 pt items 18 pt after their bullets (wider than the gap that splits a line), sub-items indented further.
  const parts: string[] = [];
  const item = (bulletX: number, textX: number, y: number, text: string) =>
    parts.push(
      `BT /F2 11 Tf ${bulletX} ${y} Td (\\225) Tj ET`,
      `BT /F1 11 Tf ${textX} ${y} Td (${text}) Tj ET`,
    );
  item(23.5, 48.1, 700, "Deliver new security education courses");
  item(59.5, 84.1, 685, "Deliver Security for Developer Managers course");
  item(59.5, 84.1, 670, "Create Security Architecture course");
  item(23.5, 48.1, 655, "Empower newcomers to contribute");
  const doc = await openPdf(
    onePagePdf(parts.join("\n"), { width: 720, height: 405 * 2, fonts: [HELVETICA, COURIER] }),
  );
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), { detectTables: () => [], dropStruck: false });
    const lines = layout.entries.flatMap((entry) =>
      entry.kind === "block" ? entry.block.lines.map((line) => line.text) : [],
    );
    assert.deepEqual(lines, [
      "• Deliver new security education courses",
      "• Deliver Security for Developer Managers course",
      "• Create Security Architecture course",
      "• Empower newcomers to contribute",
    ]);
  } finally {
    await doc.destroy();
  }
});

test("a Google Slides roadmap reads as a nested list of items", { timeout: 600_000 }, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "openssf-roadmap-slide.pdf"));
  assert.match(
    markdown,
    /^- Deliver new security education courses\n {2,}- Deliver Security for Developer Managers course$/m,
  );
  assert.doesNotMatch(markdown, /^-\s*$/m, markdown);
});
