/**
 * Enrichment benchmark: what each enrichment option adds to a parse, offline, on corpus documents.
 *
 *   node bench/enrichment-bench.ts [--rounds 3]
 *
 * For each document, the parse alone is the baseline (median of the rounds); then each option on its own is
 * applied to a fresh parse and its extra time printed as milliseconds and as a ratio to the parse. For
 * include_full_page_image the page images' sizes are printed too (largest PNG, mean per page).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { ENRICHMENT_OPTION_DEFAULTS, type EnrichmentOptions } from "@svc/contract";
import { applyEnrichment, parseDocument } from "../packages/docparse/src/index.ts";
import { corpusPath, NO_CORPUS } from "../packages/docparse/src/test-corpus.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const ROUNDS = Number(values.rounds);
if (NO_CORPUS) {
  console.error(NO_CORPUS);
  process.exit(1);
}

const DOCUMENTS: [string, string][] = [
  ["pdf/sources/2305.03393v1-pg9.pdf", "application/pdf"],
  ["pdf/sources/redp5110_sampled.pdf", "application/pdf"],
  ["pdf/sources/picture_classification.pdf", "application/pdf"],
  [
    "pptx/sources/pptx_chart.pptx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ],
  ["webp/sources/webp-test.webp", "image/webp"],
];
const OPTIONS = [
  "table_summarization",
  "figure_summarization",
  "chart_extraction",
  "include_full_page_image",
] as const;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

console.log("document | pages | parse ms | option | extra ms | extra / parse | notes");
for (const [file, mimeType] of DOCUMENTS) {
  const bytes = new Uint8Array(await readFile(corpusPath("docling/tests/data", file)));
  const parses: number[] = [];
  let pages = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const { ms, value } = await timed(() => parseDocument({ bytes, mimeType }));
    parses.push(ms);
    pages = value.document.pages.length;
  }
  const parseMs = median(parses);
  for (const option of OPTIONS) {
    const extras: number[] = [];
    let notes = "";
    for (let round = 0; round < ROUNDS; round++) {
      const { document } = await parseDocument({ bytes, mimeType });
      const options = { ...ENRICHMENT_OPTION_DEFAULTS, [option]: true } as Required<EnrichmentOptions>;
      const { ms } = await timed(() => applyEnrichment(document, { bytes, mimeType }, options));
      extras.push(ms);
      if (option === "include_full_page_image") {
        const sizes = document.pages.flatMap((page) =>
          page.image ? [(page.image.pngBase64.length * 3) / 4] : [],
        );
        notes =
          sizes.length > 0
            ? `${sizes.length} images, largest ${(Math.max(...sizes) / 1024).toFixed(0)} KiB, mean ${(sizes.reduce((a, b) => a + b, 0) / sizes.length / 1024).toFixed(0)} KiB`
            : "no images";
      }
      if (option === "chart_extraction") {
        notes = `${document.items.filter((item) => item.label === "figure" && item.chartData).length} charts`;
      }
    }
    const extra = median(extras);
    console.log(
      `${file.split("/").pop()} | ${pages} | ${parseMs.toFixed(0)} | ${option} | ${extra.toFixed(0)} | ${(extra / parseMs).toFixed(2)} | ${notes}`,
    );
  }
}
