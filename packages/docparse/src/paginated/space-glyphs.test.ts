import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { engineMarkdown, plainWords, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { HELVETICA, onePagePdf } from "../pdf/test-pdf.ts";
import { blockText } from "./blocks.ts";
import { layoutPage } from "./layout.ts";

const BOLD_OBLIQUE =
  "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-BoldOblique /Encoding /WinAnsiEncoding >>";

test("a space glyph between a slanted bold word and the plain word after it keeps them apart", async () => {
  // A slide's link: `OSS Fuzzing` set slanted in bold, its space glyph drawn narrow, `SIG` plain, the slanted box
  // reaching over the space to touch the next word's.
  const content = [
    "BT /F2 10 Tf 1 0 0.2 1 85.6 700 Tm [(OSS Fuzzing)] TJ",
    "1 0 0.2 1 146.72 700 Tm [( )] TJ",
    "/F1 10 Tf 1 0 0 1 147.9 700 Tm [(SIG)] TJ ET",
  ].join("\n");
  const doc = await openPdf(onePagePdf(content, { fonts: [HELVETICA, BOLD_OBLIQUE] }));
  try {
    const layout = layoutPage(await extractPdfPage(doc, 1), { detectTables: () => [], dropStruck: false });
    const text = layout.entries.flatMap((entry) => (entry.kind === "block" ? [blockText(entry.block)] : []));
    assert.deepEqual(text, ["OSS Fuzzing SIG"]);
  } finally {
    await doc.destroy();
  }
});

test("a slide's bold underlined links stay words apart from the plain words beside them", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "openssf-working-groups-slide.pdf"));
  assert.ok(` ${plainWords(markdown).join(" ")} `.includes(" w oss fuzzing sig "), markdown);
});
