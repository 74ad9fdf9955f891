/**
 * `npm run eval [-- --format pdf] [--file name] [--json]`: parses every source of the evaluation corpus, scores
 * it against its reference and prints a table per file, means per format and overall, and peak memory.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { parseDocument } from "../index.ts";
import { type DocumentScores, type ParsedViews, scoreDocument } from "./document-score.ts";
import { FORMAT_SOURCES, loadReference, type SourceFile, sourceFiles } from "./reference.ts";

interface FileResult extends Partial<DocumentScores> {
  format: string;
  file: string;
  /** Reference used, or null when the file has none (parsed and timed only). */
  reference: string | null;
  pages: number | null;
  seconds: number;
  pagesPerSecond: number | null;
  error: string | null;
}

async function evaluate(source: SourceFile): Promise<FileResult> {
  const reference = loadReference(source);
  const bytes = new Uint8Array(readFileSync(source.path));
  let parsed: ParsedViews = { markdown: "", pages: [] };
  let pages: number | null = null;
  let error: string | null = null;
  const start = performance.now();
  try {
    // Tables as markdown, as the reference markdown writes them: NID compares text; TEDS reads each table
    // fragment's HTML, which is there in either mode.
    const options = { parsing: { table_output_mode: "markdown" as const } };
    const { result } = await parseDocument({ bytes, mimeType: source.mimeType, options });
    parsed = result;
    pages = result.total_pages;
  } catch (thrown) {
    error = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
  }
  const seconds = (performance.now() - start) / 1000;
  const result: FileResult = {
    format: source.format,
    file: source.name,
    reference: reference?.origin ?? null,
    pages,
    seconds,
    pagesPerSecond: pages === null || seconds === 0 ? null : pages / seconds,
    error,
  };
  if (reference) {
    try {
      Object.assign(result, scoreDocument(reference, parsed));
    } catch (thrown) {
      result.error ??= `scoring failed: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
    }
  }
  return result;
}

function mean(values: (number | null | undefined)[]): number | null {
  const present = values.filter((value): value is number => typeof value === "number");
  return present.length === 0 ? null : present.reduce((sum, value) => sum + value, 0) / present.length;
}

/** Means over the files that have each score; speed over the files that parsed. */
function summarize(results: FileResult[]) {
  const parsed = results.filter((result) => result.pages !== null);
  const pages = parsed.reduce((sum, result) => sum + (result.pages ?? 0), 0);
  const seconds = parsed.reduce((sum, result) => sum + result.seconds, 0);
  return {
    files: results.length,
    failed: results.filter((result) => result.pages === null).length,
    scored: results.filter((result) => result.reference !== null).length,
    nid: mean(results.map((result) => result.nid)),
    teds: mean(results.map((result) => result.teds)),
    tedsStructure: mean(results.map((result) => result.tedsStructure)),
    readingOrder: mean(results.map((result) => result.readingOrder)),
    pages,
    seconds,
    pagesPerSecond: seconds > 0 ? pages / seconds : null,
  };
}

const fixed = (value: number | null | undefined, digits = 3) =>
  typeof value === "number" ? value.toFixed(digits) : "-";

/** Prints aligned columns: the first `textColumns` to the left, the numbers after them to the right. */
function printTable(header: string[], rows: string[][], textColumns: number): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column].length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column < textColumns ? cell.padEnd(widths[column]) : cell.padStart(widths[column]),
      )
      .join("  ");
  console.log(line(header));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(line(row));
}

const { values } = parseArgs({
  options: {
    format: { type: "string", multiple: true },
    file: { type: "string" },
    json: { type: "boolean", default: false },
  },
});
const unknown = (values.format ?? []).filter((format) => !(format in FORMAT_SOURCES));
if (unknown.length > 0) {
  console.error(`unknown format ${unknown.join(", ")}; formats: ${Object.keys(FORMAT_SOURCES).join(", ")}`);
  process.exit(2);
}
const sources = sourceFiles(undefined, values.format).filter(
  (source) => values.file === undefined || source.name.includes(values.file),
);
const results: FileResult[] = [];
for (const source of sources) results.push(await evaluate(source));
const formats = [...new Set(results.map((result) => result.format))];
const summary = {
  formats: Object.fromEntries(
    formats.map((format) => [format, summarize(results.filter((r) => r.format === format))]),
  ),
  overall: summarize(results),
  peakRssMb: process.resourceUsage().maxRSS / 1024,
};

if (values.json) {
  console.log(JSON.stringify({ files: results, ...summary }, null, 2));
} else {
  printTable(
    ["format", "file", "reference", "pages", "NID", "TEDS", "TEDS-s", "tables", "order", "s", "pages/s"],
    results.map((r) => [
      r.format,
      r.file,
      r.reference ?? "none",
      r.pages === null ? "-" : String(r.pages),
      fixed(r.nid),
      fixed(r.teds),
      fixed(r.tedsStructure),
      r.tablesReference ? `${r.tablesMatched}/${r.tablesReference}` : "-",
      fixed(r.readingOrder),
      fixed(r.seconds, 2),
      fixed(r.pagesPerSecond, 1),
    ]),
    3,
  );
  console.log();
  const rows = [...Object.entries(summary.formats), ["overall", summary.overall] as const];
  printTable(
    ["format", "files", "failed", "scored", "NID", "TEDS", "TEDS-s", "order", "pages", "s", "pages/s"],
    rows.map(([name, s]) => [
      name,
      String(s.files),
      String(s.failed),
      String(s.scored),
      fixed(s.nid),
      fixed(s.teds),
      fixed(s.tedsStructure),
      fixed(s.readingOrder),
      String(s.pages),
      fixed(s.seconds, 2),
      fixed(s.pagesPerSecond, 1),
    ]),
    1,
  );
  console.log(`\npeak memory (max RSS): ${summary.peakRssMb.toFixed(0)} MB`);
  console.log("A failed parse is scored as an empty prediction (NID 0, TEDS 0). Failures:");
  const failures = results.filter((r) => r.error !== null);
  for (const r of failures) console.log(`  ${r.format}/${r.file}: ${r.error}`);
  if (failures.length === 0) console.log("  none");
}
