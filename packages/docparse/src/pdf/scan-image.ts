import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, type PDFRef } from "pdf-lib";

/** A scanned page's embedded image as stored in the PDF: a JPEG, or zlib-compressed 8-bit pixels. */
export interface EmbeddedScan {
  kind: "jpeg" | "deflated";
  data: Uint8Array;
  width: number;
  height: number;
  /** Samples per pixel: 1 gray, 3 RGB. */
  channels: 1 | 3;
}

/** Form XObjects nest images; a scan is never deeper than this. */
const MAX_DEPTH = 4;

/**
 * Opens a PDF's object structure (not its content) to take scans out as stored: rendering a 600 dpi page image
 * with pdf.js costs about a second, while decoding the JPEG itself, shrunk on load, costs a tenth of that.
 * Null when the file cannot be read this way (the caller renders instead).
 */
export async function openScanSource(bytes: Uint8Array): Promise<PDFDocument | null> {
  try {
    return await PDFDocument.load(bytes, {
      updateMetadata: false,
      ignoreEncryption: true,
      throwOnInvalidObject: false,
    });
  } catch {
    return null;
  }
}

/**
 * The largest image a page draws in a form we decode directly (a JPEG, or 8-bit gray or RGB pixels under
 * FlateDecode without a predictor), through nested form XObjects, or null when it has none. The caller checks
 * that the image covers the page.
 */
export function embeddedScan(doc: PDFDocument, pageIndex: number): EmbeddedScan | null {
  let best: EmbeddedScan | null = null;
  const seen = new Set<PDFRawStream>();
  const visit = (resources: PDFDict | undefined, depth: number) => {
    const xobjects = resources?.lookupMaybe(PDFName.of("XObject"), PDFDict);
    if (!xobjects || depth > MAX_DEPTH) return;
    for (const [, ref] of xobjects.entries()) {
      const stream = doc.context.lookup(ref as PDFRef);
      if (!(stream instanceof PDFRawStream) || seen.has(stream)) continue;
      seen.add(stream);
      const dict = stream.dict;
      const subtype = dict.get(PDFName.of("Subtype"));
      if (subtype === PDFName.of("Form")) {
        visit(dict.lookupMaybe(PDFName.of("Resources"), PDFDict), depth + 1);
        continue;
      }
      if (subtype !== PDFName.of("Image")) continue;
      const kind = directKind(dict);
      const channels = colorChannels(dict);
      if (!kind || !channels) continue;
      const width = dict.lookupMaybe(PDFName.of("Width"), PDFNumber)?.asNumber() ?? 0;
      const height = dict.lookupMaybe(PDFName.of("Height"), PDFNumber)?.asNumber() ?? 0;
      if (!best || width * height > best.width * best.height) {
        best = { kind, data: stream.contents, width, height, channels };
      }
    }
  };
  try {
    visit(doc.getPage(pageIndex).node.Resources(), 0);
  } catch {
    return null;
  }
  return best;
}

/**
 * A single DCTDecode or FlateDecode filter (no predictor), 8 bits per sample, and no decode array or mask that
 * would change what the pixels mean; else null.
 */
function directKind(dict: PDFDict): EmbeddedScan["kind"] | null {
  if (dict.has(PDFName.of("Decode")) || dict.has(PDFName.of("SMask")) || dict.has(PDFName.of("Mask")))
    return null;
  const raw = dict.get(PDFName.of("Filter"));
  const filter = raw instanceof PDFArray ? (raw.size() === 1 ? raw.get(0) : null) : raw;
  if (filter === PDFName.of("DCTDecode")) return "jpeg";
  const bits = dict.lookupMaybe(PDFName.of("BitsPerComponent"), PDFNumber)?.asNumber();
  if (filter === PDFName.of("FlateDecode") && bits === 8 && !dict.has(PDFName.of("DecodeParms")))
    return "deflated";
  return null;
}

/** Gray or RGB by the image's color space; null for anything else (indexed, CMYK, ICC-based…). */
function colorChannels(dict: PDFDict): 1 | 3 | null {
  const space = dict.get(PDFName.of("ColorSpace"));
  if (space === PDFName.of("DeviceGray")) return 1;
  if (space === PDFName.of("DeviceRGB")) return 3;
  return null;
}
