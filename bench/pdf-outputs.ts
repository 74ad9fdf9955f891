/**
 * Writes the engine's output for a fixed set of PDFs, one JSON file per PDF and option set (the document model and
 * the ParseResult views: markdown, pages, chunks), so that two versions of the code can be compared file by file
 * with `diff -r`: a change meant to cost less CPU must leave every file byte-identical.
 *
 *   node bench/pdf-outputs.ts <out-dir> [--large] [--only <substring>]
 *
 * The PDFs: every PDF of `packages/docparse/test/real-world/` and of the table suites (`test/tables/<suite>/`),
 * and the docling corpus's PDFs (`pdf/` and `pdf/sources/`); each parsed twice, with the default options and with
 * a second set that turns on what changes the model or the views (images, furniture by repetition, sections left
 * out, markdown tables, page chunks). `--large` adds the 616-page PDF of `pdf-api-bench.ts` (docling's sources
 * repeated 14 times), read by two threads. Image bytes are written as their SHA-256.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { PDFDocument } from "pdf-lib";
import { parseDocument } from "../packages/docparse/src/index.ts";
import { DOCLING_DATA, NO_CORPUS } from "../packages/docparse/src/test-corpus.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { large: { type: "boolean", default: false }, only: { type: "string" } },
});
const out = positionals[0];
if (!out) throw new Error("usage: node bench/pdf-outputs.ts <out-dir> [--large] [--only <substring>]");
mkdirSync(out, { recursive: true });

const TEST = path.join(import.meta.dirname, "../packages/docparse/test");
const pdfsIn = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith(".pdf"))
    .sort()
    .map((name) => path.join(dir, name));

const files: { label: string; pdf: string }[] = [];
for (const pdf of pdfsIn(path.join(TEST, "real-world")))
  files.push({ label: `real-world-${path.basename(pdf)}`, pdf });
for (const suite of readdirSync(path.join(TEST, "tables")).sort()) {
  for (const pdf of pdfsIn(path.join(TEST, "tables", suite)))
    files.push({ label: `tables-${suite}-${path.basename(pdf)}`, pdf });
}
// Without the shared corpus the docling PDFs are left out: say so, or two runs from different places compare
// different sets of files without a word.
if (!DOCLING_DATA) console.error(`docling PDFs left out: ${NO_CORPUS}`);
else {
  for (const sub of ["pdf", "pdf/sources"]) {
    for (const pdf of pdfsIn(path.join(DOCLING_DATA, sub))) {
      files.push({ label: `docling-${sub.replace("/", "-")}-${path.basename(pdf)}`, pdf });
    }
  }
}

const OPTION_SETS = {
  default: {},
  other: {
    include_images: true,
    cross_page_header_detection: true,
    ignore_sections: ["page_header", "page_footer", "page_number"],
    table_output_mode: "markdown",
    chunking_strategy: "page",
  },
} as const;

/** JSON with typed arrays (image bytes) as their hash. */
function stable(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      ArrayBuffer.isView(v)
        ? `sha256:${createHash("sha256")
            .update(v as Uint8Array)
            .digest("hex")}`
        : v,
    1,
  );
}

async function write(label: string, bytes: Uint8Array, sets: (keyof typeof OPTION_SETS)[]): Promise<void> {
  for (const set of sets) {
    const started = performance.now();
    let text: string;
    try {
      const output = await parseDocument({
        bytes: bytes.slice(),
        mimeType: "application/pdf",
        options: { parsing: OPTION_SETS[set] as never },
      });
      text = stable(output);
    } catch (error) {
      text = `error: ${(error as Error).message}`;
    }
    writeFileSync(path.join(out, `${label}.${set}.json`), text);
    console.log(`${label} ${set} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
}

for (const { label, pdf } of files) {
  if (values.only && !label.includes(values.only)) continue;
  await write(label, new Uint8Array(readFileSync(pdf)), ["default", "other"]);
}

if (values.large && DOCLING_DATA) {
  const dir = path.join(DOCLING_DATA, "pdf/sources");
  const sources = await Promise.all(pdfsIn(dir).map(async (pdf) => PDFDocument.load(readFileSync(pdf))));
  const large = await PDFDocument.create();
  for (let r = 0; r < 14; r++) {
    for (const source of sources) {
      for (const page of await large.copyPages(source, source.getPageIndices())) large.addPage(page);
    }
  }
  await write("large-616", new Uint8Array(await large.save()), ["default"]);
}
