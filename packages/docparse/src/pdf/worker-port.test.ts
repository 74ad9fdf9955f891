import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { closePdf, openPdf } from "./open.ts";
import { installPatchedWorker } from "./worker-patch.ts";
import { WorkerPort } from "./worker-port.ts";

const ENQUEUE = 4;

/** The next message the port delivers. */
function received(port: WorkerPort): Promise<unknown> {
  return new Promise((resolve) => port.addEventListener("message", (event) => resolve(event.data)));
}

describe("WorkerPort", () => {
  test("an operator list chunk is handed over with its own arrays, its operators' arguments not copied", async () => {
    const port = new WorkerPort();
    const args = [
      [1, 2],
      ["F1", 12],
    ];
    const chunk = {
      fnArray: [10, 20],
      argsArray: args.slice(),
      lastChunk: false,
      separateAnnots: null,
      length: 2,
    };
    const arriving = received(port);
    port.postMessage({ sourceName: "w", targetName: "m", stream: ENQUEUE, streamId: 1, chunk });
    // What pdf.js's OperatorList.flush does right after sending a chunk.
    chunk.fnArray.length = 0;
    chunk.argsArray.length = 0;
    const data = (await arriving) as { chunk: typeof chunk };
    assert.deepEqual(data.chunk.fnArray, [10, 20]);
    assert.equal(data.chunk.argsArray.length, 2);
    assert.equal(data.chunk.argsArray[0], args[0], "the arguments are the sender's own");
  });

  test("a text content chunk keeps the items sent when the worker starts new ones", async () => {
    const port = new WorkerPort();
    const textContent = { items: [{ str: "one" }], styles: { f1: { fontFamily: "serif" } }, lang: null };
    const arriving = received(port);
    port.postMessage({ sourceName: "w", targetName: "m", stream: ENQUEUE, streamId: 2, chunk: textContent });
    // What pdf.js's getTextContent does right after sending a chunk.
    textContent.items = [];
    textContent.styles = {} as typeof textContent.styles;
    const data = (await arriving) as { chunk: typeof textContent };
    assert.deepEqual(data.chunk.items, [{ str: "one" }]);
    assert.deepEqual(Object.keys(data.chunk.styles), ["f1"]);
  });

  test("any other message is a copy, as pdf.js's own port makes", async () => {
    const port = new WorkerPort();
    const message = {
      sourceName: "w",
      targetName: "m",
      action: "commonobj",
      data: ["g_1", "Font", { name: "F" }],
    };
    const arriving = received(port);
    port.postMessage(message);
    message.data[0] = "changed";
    const data = (await arriving) as typeof message;
    assert.notEqual(data, message);
    assert.equal(data.data[0], "g_1");
  });

  test("messages arrive in the order sent, after the sender's step", async () => {
    const port = new WorkerPort();
    const seen: unknown[] = [];
    port.addEventListener("message", (event) => seen.push((event.data as { n: number }).n));
    port.postMessage({ n: 1 });
    port.postMessage({ n: 2, stream: ENQUEUE, chunk: { items: [], styles: {} } });
    port.postMessage({ n: 3 });
    assert.deepEqual(seen, []);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, [1, 2, 3]);
  });
});

/** Every page's operators and text, as JSON (fonts' ids name their document: `g_d3_f1` is `g_d_f1`). */
async function pagesRead(doc: PDFDocumentProxy): Promise<string[]> {
  const pages: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n);
    const ops = await page.getOperatorList();
    const text = await page.getTextContent();
    const json = JSON.stringify({
      fn: ops.fnArray,
      args: ops.argsArray,
      items: text.items,
      styles: text.styles,
    });
    pages.push(json.replace(/\bg_d\d+_/g, "g_d_"));
  }
  return pages;
}

describe("openPdf's port", () => {
  for (const name of ["2305.03393v1-pg9.pdf", "picture_classification.pdf", "redp5110_sampled.pdf"]) {
    test(`${name}: operators and text read as through pdf.js's own in-thread port`, {
      skip: NO_CORPUS,
    }, async () => {
      const bytes = readFileSync(corpusPath("docling/tests/data/pdf/sources", name));
      const doc = await openPdf(bytes);
      const ours = await pagesRead(doc).finally(() => closePdf(doc));
      await installPatchedWorker();
      const task = pdfjs.getDocument({
        data: new Uint8Array(bytes),
        isEvalSupported: false,
        useSystemFonts: false,
        fontExtraProperties: true,
        verbosity: pdfjs.VerbosityLevel.ERRORS,
      });
      const theirs = await pagesRead(await task.promise).finally(() => task.destroy());
      assert.equal(ours.length, theirs.length);
      for (let i = 0; i < ours.length; i++) assert.equal(ours[i], theirs[i], `page ${i + 1}`);
    });
  }
});
