import { readFileSync } from "node:fs";
import type { DetectedTable } from "../paginated/geometry.ts";
import { extractPdfPage } from "../pdf/extract.ts";
import { openPdf } from "../pdf/open.ts";
import { detectRuledTables } from "./ruled.ts";

/** The ruled tables found on the first page of a PDF of `test/real-world/` (`name`, e.g. `ru-drawing-form.pdf`). */
export async function realWorldRuledTables(name: string): Promise<DetectedTable[]> {
  const bytes = new Uint8Array(readFileSync(new URL(`../../test/real-world/${name}`, import.meta.url)));
  const doc = await openPdf(bytes);
  try {
    return detectRuledTables(await extractPdfPage(doc, 1));
  } finally {
    await doc.destroy();
  }
}
