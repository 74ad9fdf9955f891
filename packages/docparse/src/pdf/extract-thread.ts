import { parentPort } from "node:worker_threads";
import type { PageGeometry } from "../paginated/geometry.ts";
import { extractCounted } from "./extract.ts";
import { closePdf, openPdf } from "./open.ts";

/**
 * The body of a page extraction helper thread (extract-pages.ts): opens its own copy of a PDF and takes page
 * indices from the counter it shares with the parsing thread until none is left, posting each page's geometry.
 */

/** One document's pages to share: `pages[i]` is taken by whoever adds 1 to `counter[0]` and gets `i`. */
export interface ExtractTask {
  bytes: Uint8Array;
  pages: number[];
  counter: Int32Array;
}

export type ExtractReply =
  | { kind: "page"; index: number; page: PageGeometry }
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
      for (;;) {
        const index = Atomics.add(task.counter, 0, 1);
        if (index >= task.pages.length) break;
        reply({
          kind: "page",
          index,
          page: await extractCounted(doc, task.pages[index], read),
        });
      }
    } finally {
      await closePdf(doc);
    }
    reply({ kind: "done" });
  } catch (error) {
    reply({ kind: "error", message: error instanceof Error ? error.message : String(error) });
  }
});
