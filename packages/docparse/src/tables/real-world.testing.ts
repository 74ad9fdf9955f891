import { readFileSync } from "node:fs";
import type { DetectedTable } from "../paginated/geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { detectRuledTables } from "./ruled.ts";

/** The ruled tables found on a page (the first by default) of a PDF of `test/real-world/` (`name`, e.g. `ru-drawing-form.pdf`). */
export async function realWorldRuledTables(name: string, pageNumber = 1): Promise<DetectedTable[]> {
  const bytes = new Uint8Array(readFileSync(new URL(`../../test/real-world/${name}`, import.meta.url)));
  const doc = await openPdf(bytes);
  try {
    return detectRuledTables(await extractPdfPage(doc, pageNumber));
  } finally {
    await doc.destroy();
  }
}
