/**
 * `npm run eval:extract [-- --per-layout N (3)] [--held-out N (3)] [--fresh N (3)] [--unseen N (3)] [--mixed N (10)] [--drawn N (3)]
 * [--format pdf] [--verbose] [--json]`: generates the labelled set in a temporary directory, prints field precision and recall of the offline
 * extractor per kind, per format and overall (and apart, on held-out, fresh and unseen label wordings), and page-classification
 * accuracy on the mixed documents; then the invoices of each wording set drawn as PDFs in label/value columns and
 * with a bold total line (drawn-invoices.ts). Needs LibreOffice for the DOCX and PDF copies.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DRAWN_LAYOUTS, drawnInvoiceEval } from "./drawn-invoices.ts";
import { runExtractionEval } from "./extraction-eval.ts";
import { type FieldCounts, precision, recall } from "./extraction-score.ts";
import { FORMATS, type Format } from "./extraction-set.ts";

const { values } = parseArgs({
  options: {
    "per-layout": { type: "string", default: "3" },
    format: { type: "string", multiple: true },
    mixed: { type: "string", default: "10" },
    "held-out": { type: "string", default: "3" },
    fresh: { type: "string", default: "3" },
    unseen: { type: "string", default: "3" },
    drawn: { type: "string", default: "3" },
    verbose: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

const office = ["/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice"].some(existsSync);
const asked = (values.format as Format[] | undefined) ?? FORMATS;
// Without LibreOffice there are no DOCX or PDF copies (nor mixed PDFs): say so and measure the rest.
const formats = office ? asked : asked.filter((format) => format === "html" || format === "markdown");
if (!office)
  console.log("LibreOffice (soffice) is not installed: DOCX, PDF and page classification are skipped");
const dir = mkdtempSync(path.join(tmpdir(), "svc-extract-eval-"));
try {
  const report = await runExtractionEval({
    dir,
    perLayout: Number(values["per-layout"]),
    formats,
    mixed: office ? Number(values.mixed) : 0,
    heldOut: Number(values["held-out"]),
    fresh: Number(values.fresh),
    unseen: Number(values.unseen),
  });
  if (values.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    const line = (name: string, counts: FieldCounts) =>
      `${name.padEnd(12)} precision ${precision(counts).toFixed(3)}  recall ${recall(counts).toFixed(3)}  ` +
      `(tp ${counts.tp}, fp ${counts.fp}, fn ${counts.fn})`;
    const dev = report.documents.filter((doc) => doc.wording === "dev").length;
    console.log(
      `Offline extraction: ${dev} documents (${formats.join(", ")}), wordings it was developed against`,
    );
    for (const [kind, counts] of Object.entries(report.byKind)) console.log(line(kind, counts));
    for (const [format, counts] of Object.entries(report.byFormat)) console.log(line(format, counts));
    console.log(line("overall", report.overall));
    const held = report.documents.filter((doc) => doc.wording === "held-out").length;
    if (held > 0) {
      console.log(`Held-out wordings (labels the extractor was not developed against): ${held} documents`);
      for (const [kind, counts] of Object.entries(report.heldOutByKind)) console.log(line(kind, counts));
      console.log(line("held-out", report.heldOut));
    }
    const freshCount = report.documents.filter((doc) => doc.wording === "fresh").length;
    if (freshCount > 0) {
      console.log(`Fresh wordings (a third set, never used to tune the extractor): ${freshCount} documents`);
      for (const [kind, counts] of Object.entries(report.freshByKind)) console.log(line(kind, counts));
      console.log(line("fresh", report.fresh));
    }
    const unseenCount = report.documents.filter((doc) => doc.wording === "unseen").length;
    if (unseenCount > 0) {
      console.log(
        `Unseen wordings (a fourth set, never used to tune the extractor): ${unseenCount} documents`,
      );
      for (const [kind, counts] of Object.entries(report.unseenByKind)) console.log(line(kind, counts));
      console.log(line("unseen", report.unseen));
    }
    const invalid = report.documents.filter((doc) => doc.schemaErrors.length > 0);
    console.log(`data failing its schema: ${invalid.length}`);
    if (values.verbose) {
      for (const doc of report.documents) {
        for (const miss of doc.misses) {
          console.log(
            `  ${doc.id}.${doc.format} [${doc.layout}] ${miss.field}: expected ${JSON.stringify(miss.expected)}, got ${JSON.stringify(miss.predicted)}`,
          );
        }
        for (const error of doc.schemaErrors) console.log(`  ${doc.id}.${doc.format} schema: ${error}`);
      }
    }
    const correct = report.pages.filter((page) => page.expected === page.predicted).length;
    console.log(
      `Page classification: ${correct}/${report.pages.length} pages correct, accuracy ` +
        `${report.pages.length === 0 ? "n/a" : (correct / report.pages.length).toFixed(3)}`,
    );
    for (const mismatch of report.pageCountMismatches) console.log(`  skipped ${mismatch}`);
    if (values.verbose) {
      for (const page of report.pages.filter((entry) => entry.expected !== entry.predicted)) {
        console.log(`  ${page.document} page ${page.page}: expected ${page.expected}, got ${page.predicted}`);
      }
    }
  }
  const drawn = Number(values.drawn);
  if (drawn > 0 && !values.json) {
    console.log("Invoices drawn as PDFs (pdf-lib): label/value columns, and a bold, larger total line");
    for (const wording of ["dev", "held-out", "fresh", "unseen"] as const) {
      const counts = await drawnInvoiceEval(drawn, wording);
      for (const layout of DRAWN_LAYOUTS) {
        const c = counts[layout];
        console.log(
          `${wording.padEnd(9)} ${layout.padEnd(11)} precision ${precision(c).toFixed(3)}  recall ${recall(c).toFixed(3)}  (tp ${c.tp}, fp ${c.fp}, fn ${c.fn})`,
        );
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
