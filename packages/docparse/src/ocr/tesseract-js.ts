import { createRequire } from "node:module";
import type Tesseract from "tesseract.js";
import type { PageRaster } from "../images/decode.ts";
import { OcrError } from "./ocr-error.ts";
import type { OcrOptions, OcrPage } from "./ocr-page.ts";
import { abortedError, type ReadContext, recognizePage, type WordReader } from "./recognize-page.ts";
import { parseTesseractTsv, type TsvPage } from "./tsv.ts";

/**
 * tesseract.js (Tesseract compiled to WebAssembly) for machines without the tesseract program. Fully offline: the
 * core's wasm comes from tesseract.js-core in node_modules and the language data from the @tesseract.js-data/<code>
 * package, never from a CDN, and nothing is cached to disk. Each worker is a thread holding one engine; workers
 * are made as pages need them (at most one per OCR slot) and ended after IDLE_MS without work.
 */

const IDLE_MS = 10_000;

const require = createRequire(import.meta.url);

type TesseractModule = typeof Tesseract;
let tesseract: Promise<TesseractModule> | undefined;
/** Idle workers by language. */
const idle = new Map<string, Tesseract.Worker[]>();
let busy = 0;
let idleTimer: NodeJS.Timeout | undefined;

/** True when tesseract.js and its English data are installed. */
export function tesseractJsAvailable(): boolean {
  try {
    require.resolve("tesseract.js");
    languageDataPath("eng");
    return true;
  } catch {
    return false;
  }
}

/** tesseract.js as a word reader. It has no orientation detection (that needs the osd data). */
export const tesseractJs: WordReader = {
  async name() {
    return "tesseract.js";
  },

  async readWords(png: Buffer, dpi: number, context: ReadContext): Promise<TsvPage> {
    const { signal } = context;
    signal.throwIfAborted();
    const worker = await takeWorker(context.language);
    let healthy = true;
    try {
      const module = await loadTesseract();
      await worker.setParameters({
        tessedit_pageseg_mode: context.line ? module.PSM.SINGLE_LINE : module.PSM.AUTO,
        user_defined_dpi: String(Math.round(Math.min(2400, Math.max(70, dpi)))),
      });
      signal.throwIfAborted();
      let onAbort = () => {};
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(abortedError(signal));
        signal.addEventListener("abort", onAbort, { once: true });
      });
      // The worker thread's time is not read: its wall time is charged to the page's budget instead.
      const started = performance.now();
      try {
        const recognized = worker.recognize(png, {}, { text: false, blocks: false, tsv: true });
        const result = await Promise.race([recognized, aborted]);
        return parseTesseractTsv(result.data.tsv ?? "");
      } finally {
        signal.removeEventListener("abort", onAbort);
        context.budget?.charge(performance.now() - started);
      }
    } catch (error) {
      // A worker stopped mid-page may be in any state: it is ended, not reused.
      healthy = false;
      if (error instanceof OcrError) throw error;
      if (signal.aborted) throw abortedError(signal);
      throw new OcrError(
        `tesseract.js failed: ${error instanceof Error ? error.message : String(error)}`,
        "OCR_FAILED",
      );
    } finally {
      giveBack(context.language, worker, healthy);
    }
  },
};

/**
 * Reads a page raster with tesseract.js: deskewed when asked, turned upright, words in points.
 *
 * @example
 * const page = await recognizeWithTesseractJs(raster);
 */
export function recognizeWithTesseractJs(raster: PageRaster, options: OcrOptions = {}): Promise<OcrPage> {
  return recognizePage(raster, tesseractJs, options);
}

/** Ends every idle worker now (tests, shutdown); busy ones end when their page is done and nothing waits. */
export async function closeTesseractJs(): Promise<void> {
  clearTimeout(idleTimer);
  const workers = [...idle.values()].flat();
  idle.clear();
  await Promise.all(workers.map((w) => w.terminate().catch(() => {})));
}

function loadTesseract(): Promise<TesseractModule> {
  tesseract ??= import("tesseract.js").then((m) => m.default);
  return tesseract;
}

/** The folder of a language's gzipped traineddata in its @tesseract.js-data package; throws when not installed. */
function languageDataPath(code: string): string {
  const data = require(`@tesseract.js-data/${code}`) as { langPath?: unknown };
  if (typeof data.langPath !== "string") throw new Error(`@tesseract.js-data/${code} has no langPath`);
  return data.langPath;
}

async function takeWorker(language: string): Promise<Tesseract.Worker> {
  clearTimeout(idleTimer);
  busy++;
  const reused = idle.get(language)?.pop();
  if (reused) return reused;
  try {
    const codes = language.split("+");
    const paths = new Set<string>();
    for (const code of codes) {
      try {
        paths.add(languageDataPath(code));
      } catch {
        throw new OcrError(
          `tesseract.js has no data for ${code}: @tesseract.js-data/${code} is not installed`,
          "OCR_UNAVAILABLE",
        );
      }
    }
    // One langPath serves every language only when they share a folder; packages each have their own.
    if (paths.size > 1)
      throw new OcrError("tesseract.js reads one language at a time here", "OCR_UNAVAILABLE");
    const module = await loadTesseract();
    return await module.createWorker(codes, module.OEM.LSTM_ONLY, {
      langPath: [...paths][0],
      gzip: true,
      cacheMethod: "none",
    });
  } catch (error) {
    busy--;
    throw error;
  }
}

function giveBack(language: string, worker: Tesseract.Worker, healthy: boolean): void {
  busy--;
  if (healthy) {
    const list = idle.get(language) ?? [];
    list.push(worker);
    idle.set(language, list);
  } else {
    worker.terminate().catch(() => {});
  }
  if (busy === 0) {
    idleTimer = setTimeout(() => void closeTesseractJs(), IDLE_MS);
    idleTimer.unref();
  }
}
