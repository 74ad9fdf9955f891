import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { PDFPageProxy } from "pdfjs-dist/types/src/display/api.js";
import { TEXT_EDITS } from "./actual-text.ts";
import { CLIPPED_TEXT_EDITS } from "./clipped-text.ts";
import { FONT_EDITS } from "./font-edits.ts";
import { KERNED_SPACE_EDITS } from "./kerned-spaces.ts";
import { LETTER_SPACING_EDITS } from "./letter-spacing.ts";
import { REGION_EDITS } from "./render-region.ts";
import { SCRIPT_TURN_EDITS } from "./script-turn.ts";
import { SOFT_HYPHEN_EDITS } from "./soft-hyphens.ts";
import type { WorkerEdit } from "./worker-edit.ts";

/**
 * pdf.js's worker code with a few edits, so that reading a page's geometry (`page.getOperatorList()`) pays only
 * for what the geometry uses. Profiles of born-digital parses showed a third of pdf.js's time going to work whose
 * result the operator list pass never reads:
 *
 * - every image XObject is decoded (JPEG, Flate, colour conversion) and its pixels copied to the display side
 *   while the operator list is built, though the geometry needs only its placement (the paint operator and the
 *   matrix it is drawn under). In an operator list pass the decode is kept aside instead, and runs only when
 *   asked for with `decodeImage` (image-text.ts asks for the images it tests for text). A JPEG that a native
 *   decoder reads as pdf.js would (gray or RGB, no Decode array, mask or colour transform: `jpegImage`) is not
 *   decoded at all for that test: its own bytes are handed over, and sharp decodes them shrunk on load to the
 *   test's resolution, in gray, instead of pdf.js's JPEG decoder in JavaScript at full size in RGB;
 * - every glyph drawn is compiled to an outline and copied to the display side (Node has no FontFace, so pdf.js
 *   draws glyphs as paths), though only rendering draws them. An operator list pass skips them; a render of the
 *   page builds the glyphs it draws, as pdf.js does for any glyph not built yet. Text inside a Type3 glyph's
 *   procedure keeps its outlines: that procedure is read once and kept with its font.
 *
 * - axial and radial shadings (gradients) sample their colour function 840 times to build colour stops, and a
 *   PostScript (Type 4) function is interpreted for each sample (eval, which would compile it, is off): an
 *   operator list pass keeps their geometry only; renders sample them as usual.
 *
 * - the port between pdf.js's in-thread halves (worker-port.ts) hands every message but a page's operator and text
 *   chunks over as a structured clone. A font's extra properties (asked for by open.ts for its /Differences glyph
 *   names) carry its ToUnicode and CID maps, widths and font-char maps, copied per font and per document though
 *   nothing on the main thread reads them: only /Differences is sent.
 *
 * - Flate-compressed images (those image-text.ts asks for, and every one a render draws) are inflated by one
 *   call of Node's zlib rather than through a web DecompressionStream over it, which costs three times the CPU
 *   for the same bytes.
 *
 * - a render of a page's crops for OCR (load.ts: text in images, outlined glyphs) needs none of the text layer's
 *   glyphs, which OCR would only read again: such a render (render.ts `text: false`) keeps each glyph's advance
 *   and draws none, so no glyph outline is compiled for it. pdf.js has no render option for that, so it is asked
 *   with `isEditing` and annotations off, a combination that changes nothing else (editing only hides
 *   annotations) and gives the render an operator list of its own in pdf.js's cache.
 *
 * Some edits change what is read rather than what it costs (actual-text.ts's, and this one): pdf.js reads a glyph that its font's ToUnicode maps to
 * an empty string as if it had no mapping, and takes its code for a character. Shaping engines map a cluster's
 * text onto one of its glyphs and the others to nothing (an Arabic word whose last glyph carries the whole word),
 * so such a glyph is no text when another glyph of the same map carries several characters; in a map with no such
 * glyph an empty entry is a broken one, and the code still stands in, as before. And a Type1 font's built-in encoding
 * that names a glyph beyond the Basic Multilingual Plane (`u1D44E`) reads as that character: pdf.js cut its code to
 * 16 bits there (a math italic `𝑎` read as the Hangul syllable `푎`).
 *
 * Renders (`page.render`, a separate pass of the same page) defer nothing: they decode and build everything. An
 * image used on several pages still enters pdf.js's document-wide image cache (decoded once, when first asked
 * for); a render that takes an image from that cache runs its decode if it was kept aside. Type3 glyph
 * procedures (cached with their font) are never deferred. A document cleanup drops the decodes kept aside, with
 * the cache that refers to them.
 *
 * The edits are applied to the source of pdfjs-dist's worker when this module loads, and the patched worker is
 * installed as pdf.js's in-thread ("fake") worker, which is how pdf.js runs in Node anyway. The edits fit one
 * version of pdf.js: each edit's anchor must be found exactly once and the version must be PINNED_VERSION, else
 * loading throws, so that an upgrade of pdfjs-dist fails every PDF test at once instead of changing output.
 */

/** The pdfjs-dist version the edits were written and checked against (packages/docparse/package.json pins it). */
export const PINNED_VERSION = "5.6.205";

/** The store of deferred image decodes, per document (its worker-side message handler), and its message. */
const STORE_AND_MESSAGE = `
const svcDeferredStores = new WeakMap();
function svcDeferredImages(handler) {
  let store = svcDeferredStores.get(handler);
  if (!store) {
    store = new Map();
    svcDeferredStores.set(handler, store);
  }
  return store;
}
let svcShadingWithoutColours = false;
const svcUndrawnGlyphs = new WeakMap();
function svcUndrawnGlyph(glyph) {
  let undrawn = svcUndrawnGlyphs.get(glyph);
  if (!undrawn) {
    undrawn = { ...glyph, isInFont: false };
    svcUndrawnGlyphs.set(glyph, undrawn);
  }
  return undrawn;
}
class SvcLazyData {
  constructor(build) {
    this.build = build;
  }
}
function svcHasFontData(font) {
  return Object.getOwnPropertyDescriptor(font, "data")?.get ? true : !!font.data;
}
function svcSetFontData(font, data) {
  if (!(data instanceof SvcLazyData)) {
    font.data = data;
    return;
  }
  const settle = value => {
    Object.defineProperty(font, "data", { value, writable: true, configurable: true, enumerable: true });
    return value;
  };
  Object.defineProperty(font, "data", {
    configurable: true,
    enumerable: true,
    get: () => settle(data.build()),
    set: settle
  });
}
const svcJpegSpaces = new Set(["DeviceGray", "DeviceRGB", "ICCBased"]);
function svcJpegImage(evaluator, image, resources, isInline, localColorSpaceCache) {
  try {
    if (!(image instanceof JpegStream) || image.dict.has("SMask") || image.dict.has("Mask")) {
      return null;
    }
    if (image.params instanceof Dict && image.params.has("ColorTransform")) {
      return null;
    }
    const pdfImage = new PDFImage({
      xref: evaluator.xref,
      res: resources,
      image,
      isInline,
      pdfFunctionFactory: evaluator._pdfFunctionFactory,
      globalColorSpaceCache: evaluator.globalColorSpaceCache,
      localColorSpaceCache
    });
    const space = pdfImage.colorSpace;
    if (pdfImage.imageMask || pdfImage.needsDecode || pdfImage.bpc !== 8 || !space || !svcJpegSpaces.has(space.name) || space.numComps !== 1 && space.numComps !== 3) {
      return null;
    }
    const bytes = image.bytes;
    let start = 0;
    while (start + 1 < bytes.length && !(bytes[start] === 0xff && bytes[start + 1] === 0xd8)) {
      start++;
    }
    if (start + 1 >= bytes.length) {
      return null;
    }
    return {
      width: pdfImage.width,
      height: pdfImage.height,
      components: space.numComps,
      bytes: bytes.slice(start)
    };
  } catch {
    return null;
  }
}
class WorkerMessageHandler {`;

/**
 * A CFF or Type1-as-CFF font's OpenType file (its CFF program compiled again, and the tables around it) is built
 * when something first reads the font's `data`: a render drawing its glyphs (the glyph outlines are read from that
 * file). Reading text and operators never reads it, so a document whose pages are not rendered never builds it.
 * What the text depends on (the glyph mapping, the widths, the ToUnicode amendments, the other tables' inputs) is
 * still computed when the font loads, in the same order; only the CFF compiler's run and the file's assembly wait.
 * The compiler reads the parsed CFF, which nothing changes after the font is built. In Node (`disableFontFace`, as
 * pdf.js sets it there) the display side never reads a font's file, so it is no longer copied to it.
 */
const FONT_FILE_EDITS: readonly WorkerEdit[] = [
  {
    why: "a CFF font's program compiled when its data is first read, not when it loads",
    find: `    this.seacs = this.cff.seacs;
    try {
      this.data = compiler.compile();
    } catch {
      warn("Failed to compile font " + properties.loadedName);
      this.data = file;
    }`,
    replace: `    this.seacs = this.cff.seacs;
    svcSetFontData(this, new SvcLazyData(() => {
      try {
        return compiler.compile();
      } catch {
        warn("Failed to compile font " + properties.loadedName);
        return file;
      }
    }));`,
  },
  {
    why: "the CFF table of a converted font is its program's data, read when the file is built",
    find: `    builder.addTable("CFF ", font.data);`,
    replace: `    builder.addTable("CFF ", null);`,
  },
  {
    why: "a converted font's OpenType file assembled when first read",
    find: `    builder.addTable("post", createPostTable(properties));
    return builder.toArray();`,
    replace: `    builder.addTable("post", createPostTable(properties));
    return new SvcLazyData(() => {
      builder.tables["CFF "] = font.data;
      return builder.toArray();
    });`,
  },
  {
    why: "a font's data set as it comes: a lazy file becomes a property built on first read",
    find: `    amendFallbackToUnicode(properties);
    this.data = data;`,
    replace: `    amendFallbackToUnicode(properties);
    svcSetFontData(this, data);`,
  },
  {
    why: "a font with a file still to be built has data: whether to build glyph outlines is decided without building it",
    find: `    const glyphs = font.charsToGlyphs(chars);
    if (font.data) {`,
    replace: `    const glyphs = font.charsToGlyphs(chars);
    if (svcHasFontData(font)) {`,
  },
  {
    why: "no font file copied to a display side that draws glyphs as paths (disableFontFace) and never reads it",
    find: "      buffer: compileFontInfo(this.#getExportData(EXPORT_DATA_PROPERTIES)),",
    replace:
      '      buffer: compileFontInfo(this.#getExportData(this.disableFontFace ? EXPORT_DATA_PROPERTIES.filter(name => name !== "data") : EXPORT_DATA_PROPERTIES)),',
  },
];

export const WORKER_EDITS: readonly WorkerEdit[] = [
  {
    why: "Node's zlib for Flate data, synchronously",
    find: "/**\n * @licstart",
    replace: 'import { inflateSync as svcInflateSync } from "node:zlib";\n/**\n * @licstart',
  },
  {
    why: "Flate-compressed images inflated in one call instead of through a DecompressionStream (the same zlib, the same bytes or the same failure, at a third of the CPU: the web stream hands the output over in 64 KiB chunks, each a promise); a fresh copy, as pdf.js may transfer the buffer",
    find: `    const bytes = this.stream.isAsync ? await this.stream.asyncGetBytes() : this.stream.getBytes();
    try {
      const {
        readable,
        writable
      } = new DecompressionStream(name);`,
    replace: `    const bytes = this.stream.isAsync ? await this.stream.asyncGetBytes() : this.stream.getBytes();
    if (name === "deflate") {
      try {
        return {
          decompressed: new Uint8Array(svcInflateSync(bytes)),
          compressed: bytes
        };
      } catch {
        return {
          decompressed: null,
          compressed: bytes
        };
      }
    }
    try {
      const {
        readable,
        writable
      } = new DecompressionStream(name);`,
  },
  {
    why: "a per-document store of deferred image decodes, and the test of a JPEG image that a native decoder reads as pdf.js would",
    find: "class WorkerMessageHandler {",
    replace: STORE_AND_MESSAGE,
  },
  {
    why: "the message that runs a deferred decode (its pixels arrive as the image's usual `obj` message), the one that hands over a deferred JPEG's own bytes instead (svcJpegImage); a cleanup drops the decodes not asked for",
    find: `    handler.on("Cleanup", function (data) {
      return pdfManager.cleanup(true);
    });`,
    replace: `    handler.on("Cleanup", function (data) {
      svcDeferredImages(handler).clear();
      return pdfManager.cleanup(true);
    });
    handler.on("SvcDecodeImage", function (data) {
      const store = svcDeferredImages(handler);
      const decode = store.get(data.objId);
      if (!decode) {
        return false;
      }
      store.delete(data.objId);
      return decode().then(() => true);
    });
    handler.on("SvcJpegImage", function (data) {
      return svcDeferredImages(handler).get(data.objId)?.svcJpeg?.() ?? null;
    });`,
  },
  {
    why: "an operator list pass (not a render) defers image decodes and skips glyph outlines; a render asked without its text (render.ts: isEditing with annotations off) draws none of the text layer's glyphs",
    find: `    const partialEvaluator = this.#createPartialEvaluator(handler, pageIndex);
    const newAnnotsByPage`,
    replace: `    const partialEvaluator = this.#createPartialEvaluator(handler, pageIndex);
    if (intent & RenderingIntentFlag.OPLIST) {
      partialEvaluator.svcDeferredImages = svcDeferredImages(handler);
    } else if (intent & RenderingIntentFlag.IS_EDITING && intent & RenderingIntentFlag.ANNOTATIONS_DISABLE) {
      partialEvaluator.svcTextless = true;
    }
    const newAnnotsByPage`,
  },
  {
    why: "a render that reuses an image from pdf.js's document-wide cache runs its decode if it was kept aside",
    find: `                if (cachedImage) {
                  addCachedImageOps(operatorList, cachedImage);`,
    replace: `                if (cachedImage) {
                  if (!self.svcDeferredImages && cachedImage.objId) {
                    const store = svcDeferredImages(self.handler);
                    const decode = store.get(cachedImage.objId);
                    if (decode) {
                      store.delete(cachedImage.objId);
                      decode();
                    }
                  }
                  addCachedImageOps(operatorList, cachedImage);`,
  },
  {
    why: "the decode as a function, run now or kept aside",
    find: `    PDFImage.buildImage({
      xref: this.xref,
      res: resources,
      image,
      isInline,`,
    replace: `    const svcDecode = () => PDFImage.buildImage({
      xref: this.xref,
      res: resources,
      image,
      isInline,`,
  },
  {
    why: "kept aside in an operator list pass, except for Type3 glyph procedures (cached with their font), with the way to its JPEG bytes",
    find: `      return this._sendImgData(objId, null, cacheGlobally);
    });
    if (cacheKey) {`,
    replace: `      return this._sendImgData(objId, null, cacheGlobally);
    });
    if (this.svcDeferredImages && !this.parsingType3Font) {
      svcDecode.svcJpeg = () => svcJpegImage(this, image, resources, isInline, localColorSpaceCache);
      this.svcDeferredImages.set(objId, svcDecode);
    } else {
      svcDecode();
    }
    if (cacheKey) {`,
  },
  {
    why: "an axial or radial shading parsed while svcShadingWithoutColours is set keeps its geometry and no colour stops (840 samples of its function, a PostScript function interpreted sample by sample where eval is off)",
    find: `    this.extendStart = extendStart;
    this.extendEnd = extendEnd;
    const fnObj = dict.getRaw("Function");`,
    replace: `    this.extendStart = extendStart;
    this.extendEnd = extendEnd;
    if (svcShadingWithoutColours) {
      this.colorStops = [];
      return;
    }
    const fnObj = dict.getRaw("Function");`,
  },
  {
    why: "shadings of an operator list pass (not a render, not a Type3 glyph) parsed without colour stops: the geometry reads no gradient colours",
    find: `      const shadingFill = Pattern.parseShading(shading, this.xref, resources, this._pdfFunctionFactory, this.globalColorSpaceCache, localColorSpaceCache, this.options.prepareWebGPU);`,
    replace: `      svcShadingWithoutColours = !!this.svcDeferredImages && !this.parsingType3Font;
      let shadingFill;
      try {
        shadingFill = Pattern.parseShading(shading, this.xref, resources, this._pdfFunctionFactory, this.globalColorSpaceCache, localColorSpaceCache, this.options.prepareWebGPU);
      } finally {
        svcShadingWithoutColours = false;
      }`,
  },
  {
    why: "of a font's extra properties (fontExtraProperties), only /Differences goes to the main thread: glyph-names.ts reads it, pdf.js's display side reads none, and copying the others (ToUnicode and CID maps, widths, font-char maps) cost more than any other message",
    find: "      extra: this.fontExtraProperties ? this.#getExportData(EXPORT_DATA_EXTRA_PROPERTIES) : undefined",
    replace: '      extra: this.fontExtraProperties ? this.#getExportData(["differences"]) : undefined',
  },
  {
    why: "a render without its text keeps each glyph's advance but draws none (isInFont false: pdf.js's display side skips such glyphs), so no outline is built; Type3 glyphs, text inside a Type3 procedure (cached with its font) and text that clips keep being drawn",
    find: `  handleText(chars, state) {
    const font = state.font;`,
    replace: `  handleText(chars, state) {
    const font = state.font;
    if (this.svcTextless && !this.parsingType3Font && !font.isType3Font && !(state.textRenderingMode & TextRenderingMode.ADD_TO_PATH_FLAG)) {
      return font.charsToGlyphs(chars).map(svcUndrawnGlyph);
    }`,
  },
  {
    why: "no glyph outlines in an operator list pass, except in Type3 glyph procedures (cached with their font)",
    find: `      if (isAddToPathSet || state.fillColorSpace.name === "Pattern" || state.strokeColorSpace.name === "Pattern" || font.disableFontFace) {`,
    replace: `      if ((!this.svcDeferredImages || this.parsingType3Font) && (isAddToPathSet || state.fillColorSpace.name === "Pattern" || state.strokeColorSpace.name === "Pattern" || font.disableFontFace)) {`,
  },
  {
    why: "a glyph its font's ToUnicode maps to nothing is no text when another glyph of that map carries several characters (a ligature's or a shaped word's text on one of its glyphs); otherwise, as pdf.js does, the code stands in (a broken map)",
    find: "    let unicode = this.toUnicode.get(charcode) || charcode;",
    replace: `    let unicode = this.toUnicode.get(charcode);
    if (unicode === "") {
      this.svcCarriedText ??= Object.values(this.toUnicode._map ?? {}).some(text => typeof text === "string" && [...text].length > 1);
    }
    if (unicode !== "" || !this.svcCarriedText) {
      unicode ||= charcode;
    }`,
  },
  {
    why: "a Type1 font's built-in encoding naming a glyph beyond the Basic Multilingual Plane (`u1D44E`, a math italic a) reads as that character, not as the 16-bit code its value is cut to (pdf.js built the map with String.fromCharCode, and `𝑎` read as the Hangul syllable `푎`)",
    find: "      toUnicode[charCode] = String.fromCharCode(unicode);",
    replace: "      toUnicode[charCode] = String.fromCodePoint(unicode);",
  },
  {
    why: "a page's operators are read in one go, never cut where a 20 ms time slot runs out: a text pass resumed after such a cut spaces the next glyph otherwise ('.' read ' .'), so the same page read under load read differently; in this thread's in-process worker nothing waits on the slots",
    find: "    return this.endTime <= Date.now();",
    replace: "    return false;",
  },
  ...FONT_FILE_EDITS,
  // Font loading at less CPU, the same fonts (font-edits.ts).
  ...FONT_EDITS,
  // Text pdf.js loses: a glyph mapped to a space and more, and ActualText spans (actual-text.ts).
  ...TEXT_EDITS,
  // The gaps pdf.js read as spaces inside an item, so that letter-spaced words can be read whole (letter-spacing.ts).
  ...LETTER_SPACING_EDITS,
  // A crop's render for OCR reads no image or form that lies wholly outside the crops of its page (render-region.ts).
  ...REGION_EDITS,
  // Soft hyphens whose glyphs are drawn, kept as text (soft-hyphens.ts).
  ...SOFT_HYPHEN_EDITS,
  // A space glyph whose width a kern takes back whole is no word space (kerned-spaces.ts).
  ...KERNED_SPACE_EDITS,
  // A gap where a line's script turns direction ends pdf.js's item, so bidi reorders no two columns as one (script-turn.ts).
  ...SCRIPT_TURN_EDITS,
  // Items end where glyphs run past their clip, marked, so a clipped cell's hidden rest adds nothing to its box (clipped-text.ts).
  ...CLIPPED_TEXT_EDITS,
];

/** pdf.js is not the version the edits fit, or its source no longer has an edit's anchor exactly once. */
export class WorkerPatchError extends Error {
  override name = "WorkerPatchError";
}

/**
 * `source` with every edit applied; throws WorkerPatchError when an anchor is missing, found twice, or overlaps
 * another edit's. Every anchor is looked for in the published source (no edit is anchored in another's
 * replacement), and the result is joined once: applying the edits one after the other, each on the string the last
 * one made, cost a second of CPU per thread at start (each search flattened a 2.3-million-character string of
 * pieces), against a few milliseconds this way.
 */
export function patchedWorkerSource(source: string, edits: readonly WorkerEdit[] = WORKER_EDITS): string {
  const fail = (edit: WorkerEdit, problem: string) =>
    new WorkerPatchError(
      `pdf.js worker patch (${edit.why}): its anchor is ${problem} in pdfjs-dist; ` +
        `the patch fits pdfjs-dist ${PINNED_VERSION} (packages/docparse/src/pdf/worker-patch.ts)`,
    );
  const places = edits.map((edit) => {
    const at = source.indexOf(edit.find);
    if (at < 0) throw fail(edit, "missing");
    if (source.indexOf(edit.find, at + 1) >= 0) throw fail(edit, "found more than once");
    return { at, edit };
  });
  places.sort((a, b) => a.at - b.at);
  const parts: string[] = [];
  let from = 0;
  for (const { at, edit } of places) {
    if (at < from) throw fail(edit, "inside another edit's anchor");
    parts.push(source.slice(from, at), edit.replace);
    from = at + edit.find.length;
  }
  parts.push(source.slice(from));
  return parts.join("");
}

const PACKAGE_JSON = fileURLToPath(
  new URL("../../package.json", import.meta.resolve("pdfjs-dist/legacy/build/pdf.mjs")),
);
const WORKER_SOURCE = fileURLToPath(import.meta.resolve("pdfjs-dist/legacy/build/pdf.worker.mjs"));

interface PatchedWorker {
  WorkerMessageHandler: unknown;
  /** Marks pdf.js's in-thread worker as this patched one. */
  svcPatched: true;
}

/**
 * Installs the patched worker as this thread's pdf.js worker (`globalThis.pdfjsWorker`, which pdf.js's fake
 * worker takes when it is set before the first document is opened). Throws WorkerPatchError when pdfjs-dist is
 * not PINNED_VERSION or an edit does not apply.
 */
async function install(): Promise<void> {
  const slot = globalThis as { pdfjsWorker?: PatchedWorker };
  if (slot.pdfjsWorker?.svcPatched) return;
  const { version } = JSON.parse(readFileSync(PACKAGE_JSON, "utf8")) as { version: string };
  if (version !== PINNED_VERSION) {
    throw new WorkerPatchError(
      `pdfjs-dist is ${version}; the pdf.js worker patch fits ${PINNED_VERSION}: check each edit of ` +
        "packages/docparse/src/pdf/worker-patch.ts against the new worker, then change PINNED_VERSION",
    );
  }
  const source = patchedWorkerSource(readFileSync(WORKER_SOURCE, "utf8"));
  // The worker imports only node:zlib, so it loads from anywhere (its import.meta.url is only read by wasm
  // loaders, to which open.ts gives pdf.js's wasm folder explicitly): from a file in a fresh private directory,
  // removed once loaded (a file, not a data: URL, so stack traces name it in a few characters). Where no such
  // file can be written (a read-only temporary directory), pdf.js stays as published: slower, the same output.
  let dir: string;
  try {
    dir = mkdtempSync(path.join(tmpdir(), "svc-pdfjs-"));
    writeFileSync(path.join(dir, "pdf.worker.patched.mjs"), source, { mode: 0o600 });
  } catch (error) {
    process.emitWarning(
      `pdf.js runs unpatched (slower): its patched worker cannot be written to ${tmpdir()}: ${(error as Error).message}`,
    );
    return;
  }
  try {
    const { WorkerMessageHandler } = (await import(
      pathToFileURL(path.join(dir, "pdf.worker.patched.mjs")).href
    )) as {
      WorkerMessageHandler: unknown;
    };
    slot.pdfjsWorker = { WorkerMessageHandler, svcPatched: true };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let installing: Promise<void> | null = null;

/**
 * `SVC_PDFJS_UNPATCHED=1` leaves pdf.js as published (every image decoded, every glyph outline built while the
 * operator list is read): for benchmarks to compare, or to rule the patch out when a PDF reads wrong.
 */
const UNPATCHED = process.env.SVC_PDFJS_UNPATCHED === "1";

/** Installs the patched worker once per thread; every document must be opened after it (open.ts awaits it). */
export function installPatchedWorker(): Promise<void> {
  installing ??= UNPATCHED ? Promise.resolve() : install();
  return installing;
}

/** pdf.js's worker side, as `initializeFromPort` sets it up on a port (worker-port.ts). */
export interface WorkerSide {
  initializeFromPort(port: unknown): void;
}

/** This thread's pdf.js worker side: the patched one, or pdf.js's as published where it runs unpatched. */
export async function workerSide(): Promise<WorkerSide> {
  await installPatchedWorker();
  const slot = globalThis as { pdfjsWorker?: PatchedWorker };
  if (slot.pdfjsWorker?.svcPatched) return slot.pdfjsWorker.WorkerMessageHandler as WorkerSide;
  const published = (await import(pathToFileURL(WORKER_SOURCE).href)) as { WorkerMessageHandler: unknown };
  return published.WorkerMessageHandler as WorkerSide;
}

/**
 * Asks pdf.js to decode an image its operator list pass kept aside (the `img_...` id of a paintImageXObject
 * operator's first argument); its pixels then arrive in the page's `objs` under that id. False when there was
 * nothing kept aside under that id (decoded already, in flight, or dropped by a cleanup).
 */
export async function decodeImage(page: PDFPageProxy, objId: string): Promise<boolean> {
  // pdf.js as published has no such message (and decodes every image by itself).
  if (!(globalThis as { pdfjsWorker?: PatchedWorker }).pdfjsWorker?.svcPatched) return false;
  const transport = (page as unknown as { _transport: { messageHandler: MessageSender | null } })._transport;
  const handler = transport.messageHandler;
  if (!handler) return false;
  return (await handler.sendWithPromise("SvcDecodeImage", { objId })) === true;
}

/** A JPEG image as its PDF stream holds it (from the SOI marker on), with its size and colour components. */
export interface JpegImage {
  width: number;
  height: number;
  components: 1 | 3;
  bytes: Uint8Array;
}

/**
 * The JPEG bytes of an image the operator list pass kept aside, when a native JPEG decoder reads them as pdf.js
 * would: a JPEG (DCTDecode) image of 8-bit gray or RGB (DeviceGray, DeviceRGB or ICCBased with 1 or 3 components),
 * with no Decode array other than the default, no SMask or Mask, and no ColorTransform parameter. Null for any
 * other image, or when nothing was kept aside under that id; the decode stays kept aside either way.
 */
export async function jpegImage(page: PDFPageProxy, objId: string): Promise<JpegImage | null> {
  if (!(globalThis as { pdfjsWorker?: PatchedWorker }).pdfjsWorker?.svcPatched) return null;
  const transport = (page as unknown as { _transport: { messageHandler: MessageSender | null } })._transport;
  const handler = transport.messageHandler;
  if (!handler) return null;
  const found = (await handler.sendWithPromise("SvcJpegImage", { objId })) as JpegImage | null;
  return found?.bytes instanceof Uint8Array ? found : null;
}

interface MessageSender {
  sendWithPromise(action: string, data: unknown): Promise<unknown>;
}
