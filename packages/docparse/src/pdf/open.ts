import { fileURLToPath } from "node:url";
import * as pdfjs from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import { DocumentLoadError } from "../model.ts";
import { workerSide } from "./worker-patch.ts";
import { WorkerPort } from "./worker-port.ts";

/** The most pages a PDF may have; a longer one is refused before any page is read. */
export const MAX_PDF_PAGES = 5000;

/** Images larger than this many pixels are not decoded (pdf.js skips them), so one image cannot exhaust memory. */
const MAX_IMAGE_PIXELS = 100_000_000;

export interface OpenPdfOptions {
  /** The user or owner password of an encrypted PDF. */
  password?: string;
  /** At most this many pages; default MAX_PDF_PAGES. */
  maxPages?: number;
}

/**
 * Folders of pdf.js's data files as plain paths with a trailing slash: in Node pdf.js reads them with
 * `fs.readFile(folder + name)`, so a `file:` URL would not do. CMaps serve CJK fonts, standard fonts the 14 fonts
 * PDFs use without embedding them, and the wasm folder the JPEG 2000 decoder (its JavaScript fallback is loaded
 * from the same folder, so without it JPEG 2000 images are dropped) and faster JBIG2 and CCITT decoders.
 */
function pdfjsFolder(name: string): string {
  const path = fileURLToPath(
    new URL(`../../${name}/`, import.meta.resolve("pdfjs-dist/legacy/build/pdf.mjs")),
  );
  return path.endsWith("/") ? path : `${path}/`;
}
const CMAP_FOLDER = pdfjsFolder("cmaps");
const STANDARD_FONT_FOLDER = pdfjsFolder("standard_fonts");
const WASM_FOLDER = pdfjsFolder("wasm");

/** pdf.js logs errors only: its warnings are about damage it repairs, which the parse reports its own way. */
const VERBOSITY = pdfjs.VerbosityLevel.ERRORS;

/**
 * Opens a PDF with pdf.js, offline: no eval, no network (the bytes are given, and fonts, CMaps and decoders come
 * from pdfjs-dist's own folders), no system fonts. Bad input is a DocumentLoadError: a password-protected PDF
 * opened without its password or with a wrong one, a file that is not a PDF or is damaged past repair, or a PDF
 * longer than `maxPages`. The bytes are copied: pdf.js takes ownership of the buffer it is given.
 *
 * pdf.js parses on the calling thread here (Node has no pdf.js web worker; both of its halves run in this thread,
 * joined by worker-port.ts). Parsing is asynchronous and yields between chunks, but a hostile file can still keep the thread busy
 * or allocate without bound inside one synchronous step, and nothing in this function can interrupt that. What
 * protects the caller is where parses run: the server parses each document in a worker thread with a heap limit
 * and a deadline, and ends the thread when either is exceeded (packages/server/src/documents/parse-threads.ts).
 * Code that calls this on its main thread accepts that risk.
 *
 * @example
 * const doc = await openPdf(bytes, { password: "1234" });
 * try {
 *   console.log(doc.numPages);
 * } finally {
 *   await closePdf(doc);
 * }
 */
export async function openPdf(bytes: Uint8Array, options: OpenPdfOptions = {}): Promise<PDFDocumentProxy> {
  const maxPages = options.maxPages ?? MAX_PDF_PAGES;
  if (bytes.byteLength === 0)
    throw new DocumentLoadError("The PDF cannot be read: the file is empty", "INVALID_FILE");
  const worker = await documentWorker();
  const task = pdfjs.getDocument({
    worker,
    data: new Uint8Array(bytes),
    password: options.password,
    isEvalSupported: false,
    useSystemFonts: false,
    // Fonts' /Differences glyph names, to read ligatures a ToUnicode maps short (glyph-names.ts).
    fontExtraProperties: true,
    cMapUrl: CMAP_FOLDER,
    cMapPacked: true,
    standardFontDataUrl: STANDARD_FONT_FOLDER,
    wasmUrl: WASM_FOLDER,
    maxImageSize: MAX_IMAGE_PIXELS,
    enableXfa: false,
    verbosity: VERBOSITY,
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => {});
    worker.destroy();
    throw loadError(error, options.password !== undefined, hasPdfHeader(bytes));
  }
  workers.set(doc, worker);
  if (doc.numPages > maxPages) {
    await closePdf(doc);
    throw new DocumentLoadError(
      `The PDF has ${doc.numPages} pages; at most ${maxPages} pages can be parsed`,
      "INVALID_FILE",
    );
  }
  if (doc.numPages === 0) {
    await closePdf(doc);
    throw new DocumentLoadError("The PDF cannot be read: it has no pages", "INVALID_FILE");
  }
  return doc;
}

/** The worker each open document was given, destroyed with it by closePdf (pdf.js destroys only its own). */
const workers = new WeakMap<PDFDocumentProxy, pdfjs.PDFWorker>();

/**
 * A pdf.js worker of its own for one document, both sides in this thread: the patched worker side
 * (worker-patch.ts: the geometry pass spares images' pixels and glyph outlines) joined to the display side by a
 * port that hands pages' operators and text over without copying them (worker-port.ts).
 */
async function documentWorker(): Promise<pdfjs.PDFWorker> {
  const port = new WorkerPort();
  (await workerSide()).initializeFromPort(port);
  const options = { port, verbosity: VERBOSITY };
  return new pdfjs.PDFWorker(options as unknown as ConstructorParameters<typeof pdfjs.PDFWorker>[0]);
}

/** The port between the halves of an open document's worker (render.ts names render regions on it). */
export function documentPort(doc: PDFDocumentProxy): WorkerPort | undefined {
  return workers.get(doc)?.port as WorkerPort | undefined;
}

/** True when `%PDF-` appears in the first KiB, where readers look for it. */
function hasPdfHeader(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024));
  return head.includes("%PDF-", 0, "latin1");
}

/** pdf.js's reason for refusing a file, as a DocumentLoadError that says what is wrong. */
function loadError(error: unknown, passwordGiven: boolean, pdfHeader: boolean): DocumentLoadError {
  const { name, message, code } = (error ?? {}) as { name?: string; message?: string; code?: number };
  if (name === "PasswordException") {
    const wrong = code === pdfjs.PasswordResponses.INCORRECT_PASSWORD || passwordGiven;
    return new DocumentLoadError(
      wrong
        ? "The PDF is password-protected and the password given is wrong"
        : "The PDF is password-protected: a password is needed to open it",
      "INVALID_FILE",
    );
  }
  const reason = (message ?? String(error)).replace(/\.$/, "");
  if (name === "InvalidPDFException") {
    return new DocumentLoadError(
      pdfHeader
        ? `The PDF is damaged or truncated: ${reason}`
        : `The file is not a PDF (it does not start with %PDF-): ${reason}`,
      "INVALID_FILE",
    );
  }
  return new DocumentLoadError(`The PDF cannot be read: ${reason}`, "INVALID_FILE");
}

/** Releases a document opened by openPdf: its pages, fonts, decoded images and pdf.js's worker side. */
export async function closePdf(doc: PDFDocumentProxy): Promise<void> {
  await doc.destroy();
  workers.get(doc)?.destroy();
  workers.delete(doc);
}
