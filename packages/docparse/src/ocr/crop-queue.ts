import type { PageRaster } from "../images/decode.ts";
import type { OcrEngine } from "./engine.ts";
import { OcrError } from "./ocr-error.ts";
import type { OcrPage } from "./ocr-page.ts";
import { asOcrError, DEFAULT_OCR_TIMEOUT_MS } from "./recognize-page.ts";
import { ocrSlots, type Slots } from "./slots.ts";

/**
 * The crops of one document to read by OCR (text outside a digital page's text layer, pdf/unread-text.ts), read
 * in chunks: a tesseract process costs about 0.1 CPU s to start and load its model, more than reading a small
 * crop, so one process reads many crops (engine.recognizeCrops). Crops are queued while the document's pages are
 * still being read; a chunk starts, in an OCR slot, once MIN_CHUNK crops wait for each chunk waiting for a slot,
 * and what is left starts when no more can come (`close`, no `hold` open), spread over the free slots. A chunk
 * takes its crops when it gets its slot, so crops queued meanwhile join it; the time limit runs from then.
 *
 * @example
 * const queue = new CropQueue(ocrEngineFor("model03"), { language: "eng" });
 * const release = queue.hold();
 * const reads = rasters.map((raster) => queue.read(raster));
 * release();
 * queue.close();
 * const pages = await Promise.allSettled(reads);
 */

/** Crops that make a chunk worth its process while more may come. */
const MIN_CHUNK = 12;
/** Crops a chunk takes at most: bounds the time one chunk may take against the time limit. */
const MAX_CHUNK = 48;
/** When no more can come, a chunk per free slot, but none of fewer crops than this unless that is all. */
const MIN_FINAL_CHUNK = 4;

interface Queued {
  raster: PageRaster;
  resolve: (page: OcrPage) => void;
  reject: (error: OcrError) => void;
}

export interface CropQueueOptions {
  /** Tesseract language codes joined by `+`. */
  language: string;
  /** Time one chunk may take from when it gets its slot. Default 120 s, a page's. */
  timeoutMs?: number;
  /** Stops the reading of every crop when aborted. */
  signal?: AbortSignal;
  /** The slots chunks run in; the process's OCR slots by default. */
  slots?: Slots;
}

export class CropQueue {
  readonly #engine: OcrEngine;
  readonly #options: CropQueueOptions;
  readonly #slots: Slots;
  readonly #queued: Queued[] = [];
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

  /** The crop's page, read in a chunk; rejects with an OcrError when its reading failed or was stopped. */
  read(raster: PageRaster): Promise<OcrPage> {
    return new Promise<OcrPage>((resolve, reject) => {
      if (this.#options.signal?.aborted) {
        reject(asOcrError(this.#options.signal.reason));
        return;
      }
      this.#queued.push({ raster, resolve, reject });
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
  }

  #startChunk(): void {
    this.#waiting++;
    let started = false;
    this.#slots
      .run(async () => {
        started = true;
        const share = Math.min(MAX_CHUNK, Math.ceil(this.#queued.length / this.#waiting));
        this.#waiting--;
        const chunk = this.#queued.splice(0, share);
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
    const deadline = AbortSignal.timeout(this.#options.timeoutMs ?? DEFAULT_OCR_TIMEOUT_MS);
    const signal = this.#options.signal ? AbortSignal.any([this.#options.signal, deadline]) : deadline;
    let pages: (OcrPage | OcrError)[];
    try {
      pages = await this.#engine.recognizeCrops(
        chunk.map((c) => c.raster),
        { language: this.#options.language, signal },
      );
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
    for (const crop of this.#queued.splice(0)) crop.reject(error);
  }
}
