/**
 * Document intelligence benchmark: what classification and extraction add to a parse, offline and through a
 * provider adapter.
 *
 *   npx node bench/intelligence-bench.ts [--runs 20]
 *
 * For a corpus PDF (5 pages of prose) and a generated one-page invoice, prints the median time of the parse
 * (the baseline, measured in the same run, interleaved), of offline classification + extraction (per page
 * partitions) after it, and of the same extraction through the OpenAI-compatible adapter against a loopback server that
 * answers at once (so the figure is our adapter's cost: request building, HTTP, parsing, validation), each with
 * its ratio to the parse.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  documentViews,
  type ExtractionTask,
  loadDocument,
  OpenAiProvider,
  PROVIDER_DEFAULTS,
  understandDocument,
} from "@svc/docparse";
import { startProtocolServer } from "@svc/docparse/protocol-server";
import { corpusPath } from "@svc/docparse/test-corpus";
import { PDFDocument, StandardFonts } from "pdf-lib";

const { values } = parseArgs({ options: { runs: { type: "string", default: "20" } } });
const runs = Number(values.runs);

async function invoicePdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([612, 792]);
  const lines = ["INVOICE", "Invoice Number: INV-7731", "Invoice Date: 2026-02-03", "Total Due: 1,180.00"];
  for (const [index, line] of lines.entries())
    page.drawText(line, { x: 72, y: 700 - index * 20, size: 11, font });
  return new Uint8Array(await pdf.save());
}

const schema = {
  type: "object",
  properties: {
    invoice_number: { type: "string" },
    invoice_date: { type: "string" },
    total_due: { type: "number" },
  },
  required: ["invoice_number", "invoice_date", "total_due"],
};
const classes = [
  { name: "invoice", description: "An invoice with an invoice number, amounts and a total due" },
  { name: "history", description: "A history of word processors and typewriters" },
];

function median(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const server = await startProtocolServer(() => ({
  json: {
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: '{"invoice_number":"INV-7731","invoice_date":"2026-02-03","total_due":1180}',
        },
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1 },
  },
}));
const provider = new OpenAiProvider("bench", {
  kind: "openai",
  baseUrl: server.url,
  model: "m",
  apiKey: null,
  ...PROVIDER_DEFAULTS,
});

const documents: [string, Uint8Array][] = [
  [
    "multi_page.pdf (corpus, 5 pages)",
    new Uint8Array(readFileSync(corpusPath("docling/tests/data/pdf/sources/multi_page.pdf"))),
  ],
  ["generated invoice (1 page)", await invoicePdf()],
];
console.log(`runs: ${runs}; medians in ms`);
for (const [name, bytes] of documents) {
  const parse = async () => {
    const model = await loadDocument({ bytes: bytes.slice(), mimeType: "application/pdf" });
    documentViews(model);
    return model;
  };
  const task = (withProvider: boolean): ExtractionTask => ({
    schemaName: "invoice",
    jsonSchema: schema,
    prompt: null,
    partitionStrategy: "page",
    pageClasses: null,
    provideCitations: true,
    provider: withProvider ? provider : null,
  });
  const understand = (model: Awaited<ReturnType<typeof parse>>, withProvider: boolean) =>
    understandDocument(model, {
      pageClassifications: withProvider ? null : classes,
      extractions: [task(withProvider)],
      enrichment: null,
      source: { bytes, mimeType: "application/pdf" },
      pages: null,
      classificationProvider: null,
      enrichmentProvider: null,
    });
  const times = { parse: [] as number[], offline: [] as number[], adapter: [] as number[] };
  // Interleaved, after warm-up runs, so each figure sees the same state of the JIT and the machine.
  for (let run = -3; run < runs; run++) {
    let start = performance.now();
    const model = await parse();
    const parsed = performance.now() - start;
    start = performance.now();
    await understand(model, false);
    const offline = performance.now() - start;
    const again = await parse();
    start = performance.now();
    await understand(again, true);
    const adapter = performance.now() - start;
    if (run < 0) continue;
    times.parse.push(parsed);
    times.offline.push(offline);
    times.adapter.push(adapter);
  }
  const base = median(times.parse);
  const offline = median(times.offline);
  const adapter = median(times.adapter);
  console.log(`${name}`);
  console.log(`  parse (baseline)                                  ${base.toFixed(1)}`);
  console.log(
    `  offline classification + extraction after it      ${offline.toFixed(1)}  (${((offline / base) * 100).toFixed(0)}% of the parse)`,
  );
  console.log(
    `  extraction through the adapter (loopback answers) ${adapter.toFixed(1)}  (${((adapter / base) * 100).toFixed(0)}% of the parse)`,
  );
}
await server.close();
