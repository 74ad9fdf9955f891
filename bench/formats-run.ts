/**
 * Parses every file under a folder of public samples (emails, Outlook items, e-books, archives, markup) and prints,
 * per file, its outcome: `ok` with the backend and the first words, or `FAIL` with the reason. Ends with counts.
 * The samples are not in the repository: gather them first (see README, "Formats: samples").
 *
 *   node bench/formats-run.ts <folder> [--quiet]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { DocumentLoadError, parseDocument, shutdownOfficePool } from "../packages/docparse/src/index.ts";
import { mimeTypeOfName } from "../packages/docparse/src/sniff.ts";

const [folder, flag] = process.argv.slice(2);
if (!folder) {
  console.error("usage: node bench/formats-run.ts <folder> [--quiet]");
  process.exit(2);
}
function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) yield* files(full);
    else yield full;
  }
}
let ok = 0;
let failed = 0;
const rawLike: string[] = [];
const wordless: string[] = [];
for (const file of files(folder)) {
  const bytes = new Uint8Array(readFileSync(file));
  try {
    const { document, result } = await parseDocument({
      bytes,
      mimeType: mimeTypeOfName(file) ?? "application/octet-stream",
    });
    ok++;
    if (!/\p{L}{2,}/u.test(result.markdown)) wordless.push(file);
    // Raw MIME or base64 left in the text is a failure to decode, even when the parse succeeded.
    if (
      /^content-transfer-encoding:\s*(base64|quoted-printable)\s*$/im.test(result.markdown) ||
      /[A-Za-z0-9+/]{76}\n[A-Za-z0-9+/]{76}\n/.test(result.markdown)
    ) {
      rawLike.push(file);
    }
    if (flag !== "--quiet")
      console.log(
        `ok   ${path.relative(folder, file)} [${document.backend}] ${result.markdown.replace(/\s+/g, " ").slice(0, 100)}`,
      );
  } catch (error) {
    failed++;
    const reason =
      error instanceof DocumentLoadError
        ? error.message
        : `DEFECT ${error instanceof Error ? error.stack : error}`;
    console.log(`FAIL ${path.relative(folder, file)}: ${reason}`);
  }
}
console.log(`${ok} successful (${wordless.length} without words: ${wordless.join(", ")}), ${failed} failed`);
console.log(`${rawLike.length} with raw MIME/base64 left: ${rawLike.join(", ")}`);
await shutdownOfficePool();
