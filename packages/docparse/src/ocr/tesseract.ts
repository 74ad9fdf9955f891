import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { PageRaster } from "../images/decode.ts";
import { OcrError } from "./ocr-error.ts";
import type { OcrOptions, OcrPage } from "./ocr-page.ts";
import type { OrientationGuess, Rotation } from "./orientation.ts";
import { abortedError, type ReadContext, recognizePage, type WordReader } from "./recognize-page.ts";
import { type ProgramResult, runProgram, type SpawnError } from "./spawn-helper.ts";
import { parseTesseractTsv, splitTesseractPages, type TsvPage } from "./tsv.ts";
import type { BatchImage } from "./word-reader.ts";

/**
 * The `tesseract` program (Debian: tesseract-ocr, tesseract-ocr-eng, tesseract-ocr-osd), one process per pass:
 * the PNG goes in on stdin, TSV comes out on stdout; or, for a batch of small images, one process for all of them:
 * the images are files of a private temporary directory, their list goes in on stdin. OpenMP is limited to one
 * thread per process; pages run in parallel instead, one per core (see slots.ts).
 */

const PROGRAM = "tesseract";
/** Output beyond this is a defect of the program, not a page: the largest pages give a few megabytes of TSV. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;
/** Tesseract ignores a resolution outside this range and guesses its own. */
const MIN_DPI = 70;
const MAX_DPI = 2400;

export interface TesseractInstallation {
  /** `5.3.0`. */
  version: string;
  /** Installed traineddata: `eng`, `osd`... */
  languages: string[];
}

let installation: Promise<TesseractInstallation | null> | undefined;

/** The installed tesseract program's version and languages, or null when it is missing or broken. Cached. */
export function tesseractInstallation(): Promise<TesseractInstallation | null> {
  installation ??= (async () => {
    try {
      const version = await runTesseract(["--version"]);
      const languages = await runTesseract(["--list-langs"]);
      if (version.code !== 0 || languages.code !== 0) return null;
      const text = version.stdout.toString() + version.stderr;
      return {
        version: /tesseract v?(\d[\w.-]*)/i.exec(text)?.[1] ?? "unknown",
        languages: languages.stdout
          .toString()
          .split("\n")
          .slice(1)
          .map((l) => l.trim())
          .filter((l) => /^[\w-]+$/.test(l)),
      };
    } catch {
      return null;
    }
  })();
  return installation;
}

/**
 * True when the tesseract program runs and has English. Cached.
 *
 * @example
 * if (await tesseractAvailable()) page = await recognizeWithTesseract(raster);
 */
export async function tesseractAvailable(): Promise<boolean> {
  return (await tesseractInstallation())?.languages.includes("eng") ?? false;
}

/** The tesseract program as a word reader. */
export const tesseractCli: WordReader = {
  async name() {
    return `tesseract ${(await tesseractInstallation())?.version ?? "unknown"}`;
  },

  async readWords(png: Buffer, dpi: number, context: ReadContext): Promise<TsvPage> {
    await requireLanguages(context.language);
    const result = await runTesseract(wordArgs(dpi, context), png, context);
    if (result.code !== 0) {
      throw new OcrError(`tesseract failed (exit ${result.code}): ${lastLine(result.stderr)}`, "OCR_FAILED");
    }
    return parseTesseractTsv(result.stdout.toString("utf8"));
  },

  async readWordsBatch(images: readonly BatchImage[], context: ReadContext): Promise<TsvPage[]> {
    await requireLanguages(context.language);
    // One run per resolution (`--dpi` holds for the whole run); the crops of a document share one.
    const pages: TsvPage[] = new Array(images.length);
    const byDpi = Map.groupBy(images.keys(), (i) => dpiArg(images[i].dpi));
    for (const indexes of byDpi.values()) {
      const read = await readListed(
        indexes.map((i) => images[i].png),
        Number(dpiArg(images[indexes[0]].dpi)),
        context,
      );
      indexes.forEach((image, i) => {
        pages[image] = read[i];
      });
    }
    return pages;
  },

  async languages() {
    return (await tesseractInstallation())?.languages ?? [];
  },

  async detectOrientation(png: Buffer, dpi: number, context: ReadContext): Promise<OrientationGuess | null> {
    if (!(await tesseractInstallation())?.languages.includes("osd")) return null;
    const result = await runTesseract(
      ["stdin", "stdout", "--psm", "0", "-l", "osd", "--dpi", dpiArg(dpi)],
      png,
      context,
    );
    // A page with too few characters makes OSD exit with an error: it has no answer then.
    if (result.code !== 0) return null;
    return parseOsd(result.stdout.toString("utf8"));
  },
};

/**
 * Reads a page raster with the tesseract program: deskewed when asked, turned upright, words in points.
 *
 * @example
 * const [raster] = await decodeImage(bytes);
 * const { runs, rotation } = await recognizeWithTesseract(raster, { deskew: true });
 */
export function recognizeWithTesseract(raster: PageRaster, options: OcrOptions = {}): Promise<OcrPage> {
  return recognizePage(raster, tesseractCli, options);
}

/** Tesseract OSD's report (`Rotate: 90`, `Orientation confidence: 3.1`) as a guess; null when it has none. */
export function parseOsd(report: string): OrientationGuess | null {
  const rotate = /^Rotate:\s*(\d+)/m.exec(report);
  const confidence = /^Orientation confidence:\s*([\d.]+)/m.exec(report);
  if (!rotate || !confidence) return null;
  const rotation = Number(rotate[1]);
  if (rotation !== 0 && rotation !== 90 && rotation !== 180 && rotation !== 270) return null;
  const script = /^Script:\s*(\S+)/m.exec(report)?.[1];
  const scriptConfidence = /^Script confidence:\s*([\d.]+)/m.exec(report)?.[1];
  return {
    rotation: rotation as Rotation,
    confidence: Number(confidence[1]),
    ...(script ? { script, scriptConfidence: Number(scriptConfidence ?? 0) } : {}),
  };
}

/** The arguments of a words pass reading stdin (an image, or a list of image files) and writing to stdout. */
function wordArgs(dpi: number, context: ReadContext): string[] {
  // Other options stay at their defaults: with Debian's English data (LSTM only) `--oem 1` changes nothing, and
  // the inverted pass (tessedit_do_invert) only runs on lines read with low confidence, e.g. white on black.
  // Most of the time goes to the LSTM, which reads each line scaled to 36 px: the raster's resolution is the
  // lever (ocrScale in images/decode.ts, OCR_DPI in pdf/load.ts).
  // The plain text follows the TSV on stdout: its spaces say which of a line's words are one (tsv.ts).
  const psm = context.line ? "7" : context.sparse ? "6" : "3";
  return ["stdin", "stdout", "-l", context.language, "--psm", psm, "--dpi", dpiArg(dpi), "tsv", "txt"];
}

/**
 * Images read by one tesseract process: written to a private temporary directory (removed whatever happens),
 * their paths listed on stdin. With the LSTM models each image is read as alone (no state carries from one image
 * to the next), so the words are those of one process per image.
 */
async function readListed(pngs: readonly Buffer[], dpi: number, context: ReadContext): Promise<TsvPage[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "svc-ocr-"));
  try {
    const files = pngs.map((_, i) => path.join(dir, `${i}.png`));
    await Promise.all(pngs.map((png, i) => writeFile(files[i], png)));
    const list = Buffer.from(`${files.join("\n")}\n`);
    const result = await runTesseract(wordArgs(dpi, context), list, context);
    if (result.code !== 0) {
      throw new OcrError(`tesseract failed (exit ${result.code}): ${lastLine(result.stderr)}`, "OCR_FAILED");
    }
    const pages = splitTesseractPages(result.stdout.toString("utf8"), pngs.length);
    if (!pages) throw new OcrError("tesseract did not read every image of the batch", "OCR_FAILED");
    return pages.map(parseTesseractTsv);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function requireLanguages(language: string): Promise<void> {
  const installed = (await tesseractInstallation())?.languages ?? [];
  const missing = language.split("+").filter((code) => !installed.includes(code));
  if (missing.length > 0) {
    throw new OcrError(`Tesseract has no data for ${missing.join(", ")}`, "OCR_UNAVAILABLE");
  }
}

function dpiArg(dpi: number): string {
  return String(Math.min(MAX_DPI, Math.max(MIN_DPI, Math.round(dpi))));
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split("\n")
      .filter((l) => l.trim() !== "")
      .at(-1) ?? "no message"
  );
}

/**
 * The environment a tesseract process runs in: OpenMP held to one thread (pages run in parallel instead), and
 * glibc's malloc asking for transparent huge pages (`glibc.malloc.hugetlb=1`, honoured where the kernel gives them
 * on request, `madvise`, ignored elsewhere). Loading the model allocates about 30 MB in small pieces: on a virtual
 * machine whose page faults cost ~20 µs, 7,400 faults of 4 KB were half of a process's 0.22 CPU s start, and a
 * third of a dozen small crops' whole read; with huge pages 3,000 faults and 0.13 s. The words read are the same.
 * Tunables the caller's environment sets are kept.
 */
export function tesseractEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const tunables = (env.GLIBC_TUNABLES ?? "").split(":").filter((t) => t !== "");
  if (!tunables.some((t) => t.startsWith("glibc.malloc.hugetlb="))) tunables.push("glibc.malloc.hugetlb=1");
  return { ...env, OMP_THREAD_LIMIT: "1", GLIBC_TUNABLES: tunables.join(":") };
}

interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * Runs tesseract with `input` on stdin, started by this thread's spawn helper (spawn-helper.ts), not by this
 * process. The process is killed when the context's signal aborts or it uses the CPU time left in the page's
 * budget, and either is thrown as an OcrError (OCR_TIMEOUT or OCR_ABORTED); a missing program is OCR_UNAVAILABLE.
 * The CPU time it used is charged to the budget.
 */
async function runTesseract(
  args: string[],
  input?: Buffer,
  context?: Pick<ReadContext, "signal" | "budget">,
): Promise<RunResult> {
  const signal = context?.signal;
  const budget = context?.budget;
  if (signal?.aborted) throw abortedError(signal);
  let result: ProgramResult;
  const started = performance.now();
  try {
    result = await runProgram(PROGRAM, args, {
      env: tesseractEnv(process.env),
      input,
      signal,
      maxStdoutBytes: MAX_STDOUT_BYTES,
      maxStderrBytes: MAX_STDERR_BYTES,
      ...(budget ? { cpuLimitMs: budget.leftMs } : {}),
    });
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal);
    const { code, message } = error as SpawnError;
    throw code === "ENOENT"
      ? new OcrError("The tesseract program is not installed", "OCR_UNAVAILABLE")
      : new OcrError(`tesseract could not be run: ${message}`, "OCR_FAILED");
  }
  // Where /proc could not be read, the run's wall time stands in for its CPU time.
  budget?.charge(
    result.cpuLimited ? Number.POSITIVE_INFINITY : (result.cpuMs ?? performance.now() - started),
  );
  if (signal?.aborted) throw abortedError(signal);
  if (result.cpuLimited && budget) throw abortedError(budget.signal);
  if (result.overflow) throw new OcrError("tesseract wrote too much output", "OCR_FAILED");
  return { code: result.code, stdout: result.stdout, stderr: result.stderr };
}
