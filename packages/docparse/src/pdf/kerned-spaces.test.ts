import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { onePagePdf } from "./test-pdf.ts";

async function markdownOf(bytes: Uint8Array): Promise<string> {
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf" });
  return result.markdown;
}

test("a space glyph whose width a kern takes back whole joins the halves; a kerned gap and a plain space stay spaces", async () => {
  // Helvetica's space is 278 units wide: the kern of 278 draws `khwahid` where `mi` ended.
  const content = [
    "BT /F1 12 Tf 72 700 Td [(Halves set like mi) ( ) 278 (khwahid in one word.)] TJ ET",
    "BT /F1 12 Tf 72 680 Td [(A space kept ) 100 (though kerned.)] TJ ET",
  ].join("\n");
  const markdown = await markdownOf(onePagePdf(content));
  assert.match(markdown, /like mikhwahid in one word\./);
  assert.match(markdown, /A space kept though kerned\./);
});

test("XeTeX's Persian zero-width non-joiner, a space glyph kerned back, reads as one word", async () => {
  const bytes = new Uint8Array(readFileSync(path.join(REAL_WORLD_DIR, "fa-lshort-persian-p20.pdf")));
  const markdown = await markdownOf(bytes);
  assert.match(markdown, /را میخواهید بنویسید/);
  assert.match(markdown, /همانطور که در مثال/);
});
