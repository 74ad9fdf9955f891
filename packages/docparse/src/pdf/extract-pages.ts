import { availableParallelism } from "node:os";
import { getHeapStatistics } from "node:v8";
import { Worker } from "node:worker_threads";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import type { PageGeometry } from "../paginated/geometry.ts";
import { type Arrival, type LayoutRequest, layoutOnArrival } from "./arrival-layout.ts";
import { DOCUMENT_PAGE_OPTIONS, extractCounted, extractPdfPage } from "./extract.ts";
import type { ExtractReply, ExtractTask } from "./extract-thread.ts";

/**
 * Page geometry of a long PDF read by two threads at once: this one and a helper thread with its own copy of the
 * document (extract-thread.ts), this one from the first page forwards and the helper from the last one backwards
until they meet (a shared counter of pages taken): each reads a run of neighbouring pages, whose fonts it has
mostly translated already. Reading a page's text and
 * operators is most of a born-digital parse, and a page's geometry depends on that page alone (fonts are named by
 * their PDF name, not by pdf.js's load order), so the pages come out the same whichever thread read them; the
 * server's one-document-per-thread parse of a large report then uses both cores. Each thread also lays out the
 * pages it read that need nothing more (arrival-layout.ts), so that the parse thread is left little after the last
 * page.
 */

/** Fewer pages than this are read here alone: starting the helper's copy of the document would cost more. */
export const SHARED_EXTRACTION_MIN_PAGES = 16;

/** One helper per thread that parses, started on the first long PDF and kept (unreferenced while idle). */
class ExtractHelper {
  readonly #worker: Worker;
  #alive = true;
  #busy = false;
  #onReply: ((reply: ExtractReply) => void) | null = null;

  constructor() {
    // The same heap limit as this thread (a server parse thread's), so the helper cannot outgrow it.
    const heapMb = Math.floor(getHeapStatistics().heap_size_limit / 1024 / 1024);
    this.#worker = new Worker(new URL("./extract-thread.ts", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      stdout: false,
      stderr: false,
    });
    this.#worker.unref();
    this.#worker.on("message", (reply: ExtractReply) => this.#onReply?.(reply));
    // A helper that fails (a crash, its heap exhausted) ends its part: the parsing thread reads the pages left.
    this.#worker.on("error", () => this.#end());
    this.#worker.on("exit", () => this.#end());
  }

  get alive(): boolean {
    return this.#alive;
  }

  get busy(): boolean {
    return this.#busy;
  }

  /** Ends the thread: a task it was running ends as if the helper had failed. */
  async stop(): Promise<void> {
    await this.#worker.terminate();
  }

  #end(): void {
    this.#alive = false;
    this.#onReply?.({ kind: "error", message: "the extraction helper ended" });
  }

  /** Reads pages of the task until the counter runs out; never rejects (its unread pages are the caller's). */
  run(
    task: ExtractTask,
    onPage: (index: number, page: PageGeometry, arrival: Arrival) => void,
  ): Promise<void> {
    this.#busy = true;
    this.#worker.ref();
    return new Promise<void>((resolve) => {
      this.#onReply = (reply) => {
        if (reply.kind === "page") {
          return onPage(reply.index, reply.page, { layout: reply.layout, unread: reply.unread });
        }
        this.#onReply = null;
        this.#busy = false;
        if (this.#alive) this.#worker.unref();
        resolve();
      };
      this.#worker.postMessage(task);
    });
  }
}

let helper: ExtractHelper | null = null;

/** This thread's helper when it is free, started if needed; null on one core or while it reads another PDF. */
function freeHelper(): ExtractHelper | null {
  if (availableParallelism() < 2) return null;
  if (helper && !helper.alive) helper = null;
  helper ??= new ExtractHelper();
  return helper.busy ? null : helper;
}

/**
 * Ends this thread's extraction helper, if it has one; the next long PDF starts another. A parse it was helping
 * reads the pages the helper had not given back.
 */
export async function stopExtractionHelper(): Promise<void> {
  const stopping = helper;
  helper = null;
  await stopping?.stop();
}

/**
 * The geometry of `pages` (1-based numbers) of the open `doc`, whose file is `bytes`, in the order given, read
 * with DOCUMENT_PAGE_OPTIONS. With a `layout` request, each page that needs nothing more is laid out by the thread
 * that read it (arrival-layout.ts), and its geometry is then the page laid out (unmapped glyphs dropped). `onPage`
 * gets each page, with its layout or null (and then its unread text when that was looked for: Arrival), as soon
 * as it is read, in the order the pages finish (work on a page,
 * such as OCR of its unread text, can start while later pages are still being read).
 */
export async function extractPages(
  doc: PDFDocumentProxy,
  bytes: Uint8Array,
  pages: readonly number[],
  onPage: (page: PageGeometry, arrival: Arrival) => void = () => {},
  layout: LayoutRequest | null = null,
): Promise<PageGeometry[]> {
  const results: (PageGeometry | undefined)[] = new Array(pages.length);
  const done = (index: number, page: PageGeometry, arrival: Arrival) => {
    results[index] = page;
    onPage(page, arrival);
  };
  const here = (index: number, page: PageGeometry) => {
    const arrival = layoutOnArrival(page, layout);
    done(index, arrival.layout?.page ?? page, arrival);
  };
  const counter = new Int32Array(new SharedArrayBuffer(4));
  const shared = pages.length >= SHARED_EXTRACTION_MIN_PAGES ? freeHelper() : null;
  const helped = shared?.run({ bytes, pages: [...pages], counter, layout }, done);
  const read = { pages: 0 };
  try {
    for (let index = 0; Atomics.add(counter, 0, 1) < pages.length; index++) {
      here(index, await extractCounted(doc, pages[index], read));
    }
  } catch (error) {
    // The document fails here: the helper stops taking pages.
    Atomics.store(counter, 0, pages.length);
    throw error;
  }
  // Waits for the helper only when it owes pages: one still starting up finds none left and ends by itself.
  if (results.includes(undefined)) await helped;
  // Pages the helper took and did not give back (it failed) are read here, so an error is this thread's own.
  for (let i = 0; i < pages.length; i++) {
    if (!results[i]) here(i, await extractPdfPage(doc, pages[i], DOCUMENT_PAGE_OPTIONS));
  }
  return results as PageGeometry[];
}
