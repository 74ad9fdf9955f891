/**
 * LibreOffice pool timing: the corpus's DOC, XLS and PPT (and an RTF made from the DOC) converted into their
 * OOXML twins by one pool worker, cold (the first document starts the worker) and warm (median of the rounds).
 *
 *   node bench/office-bench.ts [--rounds 5]
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { OfficePool, type OfficeSource } from "../packages/docparse/src/libreoffice/pool.ts";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
if (!DOCLING_DATA) throw new Error("the shared corpus is needed (SVC_CORPUS_DIR)");
const corpus = DOCLING_DATA;
const file = (format: string) =>
  new Uint8Array(readFileSync(path.join(corpus, format, "sources", `legacy_sample.${format}`)));

const pool = new OfficePool({ workers: 1 });
const time = async (bytes: Uint8Array, source: OfficeSource, target: string, filter: string) => {
  const started = performance.now();
  await pool.convert(bytes, source, target, filter);
  return performance.now() - started;
};
try {
  const doc = file("doc");
  const cold = await time(doc, "doc", "docx", "MS Word 2007 XML");
  console.log(`cold (worker start + first DOC): ${cold.toFixed(0)} ms`);
  const rtf = await pool.convert(doc, "doc", "rtf", "Rich Text Format");
  const cases: [string, Uint8Array, OfficeSource, string, string][] = [
    ["DOC → DOCX", doc, "doc", "docx", "MS Word 2007 XML"],
    ["XLS → XLSX", file("xls"), "xls", "xlsx", "Calc MS Excel 2007 XML"],
    ["PPT → PPTX", file("ppt"), "ppt", "pptx", "Impress MS PowerPoint 2007 XML"],
    ["RTF → DOCX", rtf, "rtf", "docx", "MS Word 2007 XML"],
  ];
  for (const [name, bytes, source, target, filter] of cases) {
    const runs: number[] = [];
    for (let i = 0; i < Number(values.rounds); i++) runs.push(await time(bytes, source, target, filter));
    runs.sort((a, b) => a - b);
    console.log(
      `${name} warm: median ${runs[Math.floor(runs.length / 2)].toFixed(0)} ms, max ${runs[runs.length - 1].toFixed(0)} ms`,
    );
  }
} finally {
  await pool.shutdown();
}
