import type { PageRaster } from "../images/decode.ts";
import { pageBudget } from "./cpu-budget.ts";
import type { OcrEngine } from "./engine.ts";
import { OcrError } from "./ocr-error.ts";
import type { OcrPage } from "./ocr-page.ts";
import { asOcrError, DEFAULT_OCR_CPU_LIMIT_MS } from "./recognize-page.ts";
import { ocrSlots, type Slots } from "./slots.ts";

/**
 * The crops of one document to read by OCR (text outside a digital page's text layer, pdf/unread-text.ts), read
 * in chunks: a tesseract process costs about 0.1 CPU s to start and load its model, more than reading a small
 * crop, so one process reads many crops (engine.recognizeCrops). Crops are queued while the document's pages are
 * still being read; a chunk starts, in an OCR slot, once MIN_CHUNK crops wait for each chunk waiting for a slot,
 * and what is left starts when no more can come (`close`, no `hold` open), spread over the free slots. A chunk
 * takes its crops when it gets its slot, so crops queued meanwhile join it; the time limit runs from then.
 * Memory is bounded: once the crops waiting hold `maxWaitingBytes` of PNG, a chunk starts whatever their number,
 * and `room()` keeps the caller from rendering more until a chunk has taken them (a long image-heavy document
 * would otherwise hold every crop it rendered while the OCR slots are busy).
 *
 * @example
 * const queue = new CropQueue(ocrEngineFor("model03"), { language: "eng" });
 * const release = queue.hold();
 * const reads = [];
 * for (const render of renders) {
 *   await queue.room();
 *   reads.push(queue.read(await render()));
 * }
 * release();
 * queue.close();
 * const pages = await Promise.allSettled(reads);
 */

/**
 * The language a crop of the page's own lines is read in: a Chinese or Japanese document's alone, without the
 * English added for the Latin names its images carry (crop-language.ts). Those lines are in the document's
 * language, and its data reads their figures and Latin letters itself, where English beside it takes a bold line's
 * Han glyphs for Latin letters (`本 AGH 8` for `本题共 8`). Other languages as they are.
 */
export function linesLanguage(language: string): string {
  return /^(chi_sim|chi_tra|jpn)\+eng$/.test(language) ? language.replace(/\+eng$/, "") : language;
}

/** Crops that make a chunk worth its process while more may come. */
const MIN_CHUNK = 12;
/** Crops a chunk takes at most: bounds the time one chunk may take against the time limit. */
const MAX_CHUNK = 48;
/** When no more can come, a chunk per free slot, but none of fewer crops than this unless that is all. */
const MIN_FINAL_CHUNK = 4;
/** PNG bytes of the crops waiting for a chunk beyond which a chunk starts and `room()` waits. */
export const MAX_WAITING_BYTES = 64 * 1024 * 1024;

interface Queued {
  raster: PageRaster;
  /** The crop reads lines of the page's own text (see `read`). */
  lines: boolean;
  resolve: (page: OcrPage) => void;
  reject: (error: OcrError) => void;
}

export interface CropQueueOptions {
  /**
   * Tesseract language codes joined by `+`, or a function that finds them, called once when the first chunk is
   * read (a document with no crop never pays for it).
   */
  language: string | (() => Promise<string>);
  /**
   * CPU time one chunk's OCR programs may use from when it gets its slot (cpu-budget.ts, which also sets a limit in
   * wall time). Default 120 s, a page's.
   */
  cpuLimitMs?: number;
  /** Stops the reading of every crop when aborted. */
  signal?: AbortSignal;
  /** The slots chunks run in; the process's OCR slots by default. */
  slots?: Slots;
  /** PNG bytes of waiting crops that start a chunk and make `room()` wait; MAX_WAITING_BYTES by default. */
  maxWaitingBytes?: number;
}

export class CropQueue {
  readonly #engine: OcrEngine;
  readonly #options: CropQueueOptions;
  #language: Promise<string> | null = null;
  readonly #slots: Slots;
  readonly #queued: Queued[] = [];
  #queuedBytes = 0;
  /** Callers of `room()` waiting for the queue's bytes to fall under the bound. */
  #roomWaiters: (() => void)[] = [];
  /** Chunks waiting for a slot: each takes its share of the queue when it gets one. */
  #waiting = 0;
  #holds = 0;
  #closed = false;

  constructor(engine: OcrEngine, options: CropQueueOptions) {
    this.#engine = engine;
    this.#options = options;
    this.#slots = options.slots ?? ocrSlots;
    options.signal?.addEventListener("abort", () => this.#failQueued(asOcrError(options.signal?.reason)), {
      once: true,
    });
  }

  /**
   * The crop's page, read in a chunk; rejects with an OcrError when its reading failed or was stopped. A crop of
   * `lines` of the page's own text (runs whose glyphs map to no character) is read in a Chinese or Japanese
   * document's language alone (`linesLanguage`).
   */
  read(raster: PageRaster, lines = false): Promise<OcrPage> {
    return new Promise<OcrPage>((resolve, reject) => {
      if (this.#options.signal?.aborted) {
        reject(asOcrError(this.#options.signal.reason));
        return;
      }
      this.#queued.push({ raster, lines, resolve, reject });
      this.#queuedBytes += raster.png.byteLength;
      this.#dispatch();
    });
  }

  /**
   * Tells the queue that crops are on their way (a page being rendered): the crops left over do not start until
   * every hold is released and the queue is closed. Returns the release.
   */
  hold(): () => void {
    this.#holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holds--;
      this.#dispatch();
    };
  }

  /** No more holds will start: what is queued starts once the open holds are released. */
  close(): void {
    this.#closed = true;
    this.#dispatch();
  }

  /** Crops queued and not yet taken by a chunk. */
  get queued(): number {
    return this.#queued.length;
  }

  /** PNG bytes of the crops queued and not yet taken by a chunk. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /**
   * Resolves when there is room for another crop: at once while the waiting crops hold less than the bound, else
   * once a chunk has taken them (or the queue was stopped). Render a crop only after this.
   */
  room(): Promise<void> {
    if (!this.#full() || this.#options.signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  #full(): boolean {
    return this.#queuedBytes >= (this.#options.maxWaitingBytes ?? MAX_WAITING_BYTES);
  }

  /** The crops a chunk takes: out of the queue, their bytes freed for `room()`. */
  #take(count: number): Queued[] {
    const taken = this.#queued.splice(0, count);
    for (const crop of taken) this.#queuedBytes -= crop.raster.png.byteLength;
    if (!this.#full()) for (const resolve of this.#roomWaiters.splice(0)) resolve();
    return taken;
  }

  #dispatch(): void {
    const queued = this.#queued.length;
    if (queued === 0) return;
    if (this.#closed && this.#holds === 0) {
      const free = Math.max(1, this.#slots.size - this.#slots.busy);
      const chunks = Math.min(free, Math.ceil(queued / MIN_FINAL_CHUNK));
      while (this.#waiting < chunks) this.#startChunk();
      return;
    }
    while (queued >= MIN_CHUNK * (this.#waiting + 1)) this.#startChunk();
    // Too many bytes wait: a chunk takes them however few they are.
    if (this.#full() && this.#waiting === 0) this.#startChunk();
  }

  #startChunk(): void {
    this.#waiting++;
    let started = false;
    this.#slots
      .run(async () => {
        started = true;
        const share = Math.min(MAX_CHUNK, Math.ceil(this.#queued.length / this.#waiting));
        this.#waiting--;
        const chunk = this.#take(share);
        if (chunk.length > 0) await this.#read(chunk);
      }, this.#options.signal)
      .catch((error: unknown) => {
        // An abort while waiting for the slot: every crop still queued is stopped with it.
        if (!started) this.#waiting--;
        this.#failQueued(asOcrError(error));
      })
      .finally(() => this.#dispatch());
  }

  async #read(chunk: Queued[]): Promise<void> {
    const limit = this.#options.cpuLimitMs ?? DEFAULT_OCR_CPU_LIMIT_MS;
    const { budget, signal } = pageBudget(limit, this.#options.signal);
    let pages: (OcrPage | OcrError)[];
    try {
      const { language: find } = this.#options;
      this.#language ??= typeof find === "string" ? Promise.resolve(find) : find();
      const language = await this.#language;
      pages = new Array(chunk.length);
      // Crops of the page's own lines apart from the others when they are read in another language.
      const own = linesLanguage(language);
      const groups =
        own === language
          ? [chunk.map((_, i) => i)]
          : [false, true].map((lines) => chunk.flatMap((c, i) => (c.lines === lines ? [i] : [])));
      for (const [g, indexes] of groups.entries()) {
        if (indexes.length === 0) continue;
        const read = await this.#engine.recognizeCrops(
          indexes.map((i) => chunk[i].raster),
          { language: g === 1 ? own : language, signal, budget },
        );
        indexes.forEach((i, k) => {
          pages[i] = read[k];
        });
      }
    } catch (error) {
      const failure = asOcrError(error);
      pages = chunk.map(() => failure);
    }
    chunk.forEach((crop, i) => {
      const page = pages[i];
      if (page instanceof OcrError) crop.reject(page);
      else crop.resolve(page);
    });
  }

  #failQueued(error: OcrError): void {
    for (const crop of this.#take(this.#queued.length)) crop.reject(error);
    for (const resolve of this.#roomWaiters.splice(0)) resolve();
  }
}
