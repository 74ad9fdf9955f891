/**
 * PP-OCR (PP-OCRv4 mobile through ONNX Runtime, one intra-op thread) against Tesseract on the OCR bench's pages
 * (ocr-pages.ts): dense English A4 pages and the English, Chinese (simplified, traditional) samples at 300 dpi.
 *
 *   node bench/pp-ocr-bench.ts [--speed-pages 6]
 *
 * Prints per page kind: 1 − CER against the known text with word spacing kept (spaces between English words
 * count), and median CPU seconds per page of
 *   - PP-OCR alone (detection + recognition, models loaded beforehand) on the raster our decoder gives OCR;
 *   - Tesseract alone on that raster (`tesseract -l <lang> --psm 3`, one thread);
 *   - our whole OCR of the page (decode + language detection + Tesseract + rules + missed ink);
 * then the recogniser's own CPU cost per pixel of input width. Needs what ocr-scripts-bench.ts needs, and two npm
 * packages that are not the project's dependencies: the bench prints the command that installs them when they are
 * missing (pp-ocr/reader.ts). PP-OCR's 1 − CER on an English page counts the spaces between words: its Chinese
 * model is known to drop some.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { decodeImage } from "../packages/docparse/src/images/decode.ts";
import { localTesseract } from "../packages/docparse/src/ocr/engine.ts";
import type { TsvPage } from "../packages/docparse/src/ocr/tsv.ts";
import {
  characterAccuracy,
  html,
  measure,
  normalize,
  renderPages,
  SAMPLES,
  speedPageHtml,
  speedPageText,
} from "./ocr-pages.ts";
import { loadPpOcr, readWithPpOcr, recogniserCost, stats } from "./pp-ocr/reader.ts";

const { values } = parseArgs({ options: { "speed-pages": { type: "string", default: "6" } } });
const speedPages = Number(values["speed-pages"]);

/** A TSV page's text: words by spaces, lines by newlines, in the reader's order. */
function text(page: TsvPage): string {
  const byLine = new Map<string, string[]>();
  for (const w of page.words) {
    const key = `${w.block}.${w.paragraph}.${w.line}`;
    byLine.set(key, [...(byLine.get(key) ?? []), w.text]);
  }
  return [...byLine.values()].map((words) => words.join(" ")).join("\n");
}

function tesseractText(file: string, language: string, dpi: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("tesseract", [file, "stdout", "-l", language, "--psm", "3", "--dpi", String(dpi)], {
      env: { ...process.env, OMP_THREAD_LIMIT: "1" },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`tesseract exit ${code}`))));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  await loadPpOcr();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const dir = await mkdtemp(path.join(os.tmpdir(), "svc-pp-ocr-"));
try {
  const kinds = [
    ...Array.from({ length: speedPages }, (_, i) => ({
      id: `speed${i}`,
      group: "English A4 (dense)",
      language: "eng",
      text: speedPageText(i),
      unspaced: false,
      html: speedPageHtml(i),
    })),
    ...["eng", "chi_sim", "chi_tra"].map((id) => {
      const sample = SAMPLES.find((s) => s.id === id);
      if (!sample) throw new Error(`no sample ${id}`);
      return {
        id,
        group: id,
        language: id,
        text: sample.text,
        unspaced: !!sample.unspaced,
        html: html(sample),
      };
    }),
  ];
  const pages = await renderPages(dir, new Map(kinds.map((k) => [k.id, k.html])));
  console.log(`${os.availableParallelism()} cores; load ${os.loadavg()[0].toFixed(1)}`);
  // One page read before anything is timed.
  const [first] = await decodeImage(pages.get(kinds[0].id) as Buffer);
  await readWithPpOcr(first.png);

  const rows = new Map<
    string,
    { pp: number[]; tess: number[]; ppCpu: number[]; tessCpu: number[]; ours: number[]; width: number[] }
  >();
  for (const kind of kinds) {
    const [raster] = await decodeImage(pages.get(kind.id) as Buffer);
    const file = path.join(dir, `${kind.id}-ocr.png`);
    await writeFile(file, raster.png);
    let ppPage: TsvPage = { words: [], lines: [] };
    let tessText = "";
    const widthBefore = stats.inputWidth;
    const pp = await measure(async () => {
      ppPage = await readWithPpOcr(raster.png);
    });
    const tess = await measure(async () => {
      tessText = await tesseractText(file, kind.language, Math.round(raster.ocrDpi));
    });
    const ours = await measure(async () => {
      const [again] = await decodeImage(pages.get(kind.id) as Buffer);
      await localTesseract.recognize(again);
    });
    const reference = normalize(kind.text, kind.unspaced);
    const row = rows.get(kind.group) ?? { pp: [], tess: [], ppCpu: [], tessCpu: [], ours: [], width: [] };
    row.width.push(stats.inputWidth - widthBefore);
    row.pp.push(characterAccuracy(reference, normalize(text(ppPage), kind.unspaced)));
    row.tess.push(characterAccuracy(reference, normalize(tessText, kind.unspaced)));
    row.ppCpu.push(pp.cpu);
    row.tessCpu.push(tess.cpu);
    row.ours.push(ours.cpu);
    rows.set(kind.group, row);
    if (process.env.PP_OCR_BENCH_SHOW) console.log(`--- ${kind.id}\n${text(ppPage)}`);
  }
  console.log(
    "\npage                 PP-OCR: 1-CER  CPU s  pages/s/core  rec input px | tesseract: 1-CER  CPU s | ours (tesseract, whole OCR): CPU s  pages/s/core",
  );
  for (const [group, r] of rows) {
    const pp = median(r.ppCpu);
    const ours = median(r.ours);
    console.log(
      [
        group.padEnd(20),
        median(r.pp).toFixed(3).padStart(13),
        pp.toFixed(2).padStart(6),
        (1 / pp).toFixed(2).padStart(13),
        String(median(r.width)).padStart(13),
        " |",
        median(r.tess).toFixed(3).padStart(16),
        median(r.tessCpu).toFixed(2).padStart(6),
        " |",
        ours.toFixed(2).padStart(34),
        (1 / ours).toFixed(2).padStart(13),
      ].join(""),
    );
  }
  // The recogniser's own cost per pixel of input width (its input is 48 pixels high): what a page's text costs.
  const cost = await recogniserCost();
  console.log(
    `\nPP-OCR recogniser alone: ${(cost * 1e6).toFixed(0)} µs of CPU per pixel of input width (a line 48 px high, 1200 px wide: ${(cost * 1200).toFixed(3)} s)`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
