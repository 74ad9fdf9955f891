import { parentPort } from "node:worker_threads";
import type { PageGeometry } from "../paginated/geometry.ts";
import type { PageLayout } from "../paginated/layout.ts";
import { type LayoutRequest, layoutOnArrival } from "./arrival-layout.ts";
import { extractCounted } from "./extract.ts";
import { closePdf, openPdf } from "./open.ts";
import type { UnreadText } from "./unread-text.ts";

/**
 * The body of a page extraction helper thread (extract-pages.ts): opens its own copy of a PDF and reads its pages
 * from the last one backwards, while the parsing thread reads from the first one, until together they have taken
 * them all (the counter they share), posting each page's geometry, laid out when the page needs nothing more
 * (arrival-layout.ts).
 */

export interface ExtractTask {
  bytes: Uint8Array;
  pages: number[];
  counter: Int32Array;
  /** Pages are laid out here as they are read; null: never. */
  layout: LayoutRequest | null;
}

export type ExtractReply =
  /** A page read; with its layout, the page is the one laid out (its unmapped glyphs dropped). */
  | { kind: "page"; index: number; page: PageGeometry; layout: PageLayout | null; unread: UnreadText | null }
  | { kind: "done" }
  | { kind: "error"; message: string };

const port = parentPort;
if (!port) throw new Error("extract-thread.ts runs as a worker thread");

port.on("message", async (task: ExtractTask) => {
  const reply = (message: ExtractReply) => port.postMessage(message);
  try {
    const doc = await openPdf(task.bytes);
    const read = { pages: 0 };
    try {
      for (let index = task.pages.length - 1; Atomics.add(task.counter, 0, 1) < task.pages.length; index--) {
        const page = await extractCounted(doc, task.pages[index], read);
        const { layout, unread } = layoutOnArrival(page, task.layout);
        // A laid-out page is posted once, inside its layout: the clone keeps the entries' runs the page's own, as
        // it keeps the unread text's garbled runs the page's own runs.
        reply({ kind: "page", index, page: layout?.page ?? page, layout, unread });
      }
    } finally {
      await closePdf(doc);
    }
    reply({ kind: "done" });
  } catch (error) {
    reply({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
});
