/**
 * OCR in every script, tables as images, and OCR speed, on pages this bench makes itself: known text in each
 * script is written as HTML in a Noto font, printed to PDF by LibreOffice, and rasterized by `pdftoppm` at 300 dpi
 * (gray PNG), as a clean A4 scan would be. Needs soffice, pdftoppm (poppler-utils), the Noto fonts and tesseract's
 * language data (scripts/install.sh test).
 *
 *   node bench/ocr-scripts-bench.ts [--only rus,kor] [--speed-pages 6]
 *
 * Prints, per script: 1 − CER of the page read through the image backend WITHOUT a language hint (characters,
 * whitespace left out for scripts written without spaces, runs of whitespace as one elsewhere), the languages
 * detected, and seconds; then cell accuracy of tables drawn as images (ruled and unruled: the share of reference
 * cells found at their row and column); then pages per second per core on English A4 pages at 300 dpi (our
 * decode + OCR with detection, one page at a time) against the plain `tesseract` program on the same PNGs (one
 * thread), and the ratio; and `tesseract` alone on the raster we hand it with our arguments (192 dpi for these
 * pages): the engine's own cost, which our pipeline cannot go below, and what ours adds around it.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { decodeImage } from "../packages/docparse/src/images/decode.ts";
import { parseDocument } from "../packages/docparse/src/index.ts";
import { localTesseract } from "../packages/docparse/src/ocr/engine.ts";
import { tableImage } from "../packages/docparse/src/ocr/test-support.ts";
import {
  characterAccuracy,
  html,
  measure,
  normalize,
  renderPages,
  SAMPLES,
  speedPageHtml,
  TABLES,
} from "./ocr-pages.ts";

const { values } = parseArgs({
  options: { only: { type: "string" }, "speed-pages": { type: "string", default: "6" } },
});
const speedPages = Number(values["speed-pages"]);

function tesseractPlain(file: string, args: string[] = []): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("tesseract", [file, "stdout", ...args], {
      env: { ...process.env, OMP_THREAD_LIMIT: "1" },
      stdio: "ignore",
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`tesseract exit ${code}`))));
  });
}

const dir = await mkdtemp(path.join(os.tmpdir(), "svc-ocr-scripts-"));
try {
  const only = values.only ? new Set(values.only.split(",")) : null;
  const samples = SAMPLES.filter((s) => !only || only.has(s.id));
  const files = new Map(samples.map((s) => [s.id, html(s)]));
  for (let i = 0; i < speedPages; i++) files.set(`speed${i}`, speedPageHtml(i));
  const pages = await renderPages(dir, files);
  console.log(
    `pages from LibreOffice → PDF → pdftoppm -r 300 -gray; ${os.availableParallelism()} cores; load ${os.loadavg()[0].toFixed(1)}`,
  );

  console.log("\nscript      1-CER   target  ok   detected            s/page");
  for (const sample of samples) {
    const png = pages.get(sample.id) as Buffer;
    const started = performance.now();
    const { result } = await parseDocument({ bytes: png, mimeType: "image/png", options: {} });
    const seconds = (performance.now() - started) / 1000;
    // The languages the engine chose (the parse does not report them).
    const [raster] = await decodeImage(png);
    const page = await localTesseract.recognize(raster);
    const accuracy = characterAccuracy(
      normalize(sample.text, !!sample.unspaced),
      normalize(result.markdown, !!sample.unspaced),
    );
    const ok = accuracy >= sample.target ? "yes" : "NO";
    console.log(
      `${sample.id.padEnd(11)} ${accuracy.toFixed(3)}   ${sample.target.toFixed(2)}    ${ok.padEnd(4)} ${page.language.padEnd(19)} ${seconds.toFixed(1)}`,
    );
  }

  console.log("\ntable           cell accuracy");
  for (const ruled of [true, false]) {
    let found = 0;
    let total = 0;
    for (const rows of TABLES) {
      const png = await tableImage(rows, { ruled, font: "Noto Sans" });
      const { result } = await parseDocument({ bytes: png, mimeType: "image/png", options: {} });
      const table = result.pages
        .flatMap((p) => p.page_fragments ?? [])
        .find((f) => f.fragment_type === "table");
      const htmlText = (table?.content as { html?: string } | undefined)?.html ?? "";
      const cells = [...htmlText.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
        [...row[1].matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((cell) => cell[1].trim()),
      );
      rows.forEach((row, r) => {
        row.forEach((cell, c) => {
          total++;
          if (cells[r]?.[c] === cell) found++;
        });
      });
    }
    console.log(
      `${ruled ? "ruled" : "unruled"}`.padEnd(16),
      (found / total).toFixed(3),
      `(${found}/${total} cells)`,
    );
  }

  if (speedPages > 0) {
    const ours: { wall: number; cpu: number }[] = [];
    const plain: { wall: number; cpu: number }[] = [];
    const floor: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < speedPages; i++) {
      const png = pages.get(`speed${i}`) as Buffer;
      const file = path.join(dir, `speed${i}-page.png`);
      await writeFile(file, png);
      // The engine alone on the raster we give it, with our arguments: the floor under our pipeline.
      const [raster] = await decodeImage(png);
      const ocrFile = path.join(dir, `speed${i}-ocr.png`);
      await writeFile(ocrFile, raster.png);
      const engineArgs = [
        "-l",
        "eng",
        "--psm",
        "3",
        "--dpi",
        String(Math.round(raster.ocrDpi)),
        "tsv",
        "txt",
      ];
      // Alternate, so load changes hit all three.
      plain.push(await measure(() => tesseractPlain(file)));
      floor.push(await measure(() => tesseractPlain(ocrFile, engineArgs)));
      ours.push(
        await measure(async () => {
          const [raster] = await decodeImage(png);
          await localTesseract.recognize(raster);
        }),
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const row = (name: string, runs: { wall: number; cpu: number }[]) => {
      const cpu = median(runs.map((r) => r.cpu));
      const wall = median(runs.map((r) => r.wall));
      console.log(
        `${name.padEnd(32)} ${cpu.toFixed(2)} CPU s/page  ${(1 / cpu).toFixed(2)} pages/s/core   wall ${wall.toFixed(2)} s/page`,
      );
      return { cpu, wall };
    };
    console.log(
      `\nEnglish A4 at 300 dpi, one page at a time (medians of ${speedPages}; pages/s/core = pages per CPU second, which load does not dilute as it does wall time)`,
    );
    const a = row("ours (decode + detect + OCR)", ours);
    const b = row("plain tesseract (one thread)", plain);
    const f = row("tesseract alone on our raster", floor);
    console.log(
      `speed ratio ours / plain        CPU ${(b.cpu / a.cpu).toFixed(2)}   wall ${(b.wall / a.wall).toFixed(2)}`,
    );
    console.log(
      `ours around the engine          ${(a.cpu - f.cpu).toFixed(2)} CPU s/page (decode, detection, rules, missed ink, lines)`,
    );
    // Every page at once: the OCR slots (one per core) run them in parallel.
    const all = await measure(() =>
      Promise.all(
        Array.from({ length: speedPages }, async (_, i) => {
          const [raster] = await decodeImage(pages.get(`speed${i}`) as Buffer);
          await localTesseract.recognize(raster);
        }),
      ),
    );
    console.log(
      `ours, ${speedPages} pages on ${os.availableParallelism()} cores at once: ${(speedPages / all.wall).toFixed(2)} pages/s, ${(speedPages / all.cpu).toFixed(2)} pages per CPU second`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
