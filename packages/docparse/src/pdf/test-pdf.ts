/**
 * Small PDFs written by hand for the PDF tests: one page, a content stream in PDF user space (origin bottom
 * left) and non-embedded fonts, so that a test states exactly what the page draws.
 */

/** Helvetica in WinAnsiEncoding, not embedded: pdf.js takes its glyphs from the standard font data. */
export const HELVETICA = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/** A PDF file of the given objects, numbered from 1 (the first is the catalog), with its xref table and trailer. */
function pdfFile(objects: readonly string[]): Uint8Array {
  let out = "%PDF-1.7\n";
  const offsets = objects.map((body, i) => {
    const offset = Buffer.byteLength(out, "latin1");
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("");
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

export interface OnePageOptions {
  /** The page's size in points: Letter (612 × 792) by default. */
  width?: number;
  height?: number;
  /** The page's /Rotate, when given. */
  rotate?: number;
  /** Font dictionaries, named /F1, /F2, … in order: Helvetica alone by default. */
  fonts?: readonly string[];
  /** Objects the fonts refer to (a ToUnicode stream), numbered after the fonts. */
  objects?: readonly string[];
  /** XObjects (whole stream objects: images, forms), named /X1, /X2, … in order, numbered after the objects. */
  xobjects?: readonly string[];
}

/** A one-page PDF drawing `content` (a content stream, latin1) with the given fonts. */
export function onePagePdf(content: string, options: OnePageOptions = {}): Uint8Array {
  const { width = 612, height = 792, rotate, fonts = [HELVETICA], objects = [], xobjects = [] } = options;
  const fontRefs = fonts.map((_, i) => `/F${i + 1} ${i + 5} 0 R`).join(" ");
  const first = 5 + fonts.length + objects.length;
  const xobjectRefs = xobjects.map((_, i) => `/X${i + 1} ${first + i} 0 R`).join(" ");
  const xobjectEntry = xobjects.length > 0 ? ` /XObject << ${xobjectRefs} >>` : "";
  const rotation = rotate === undefined ? "" : ` /Rotate ${rotate}`;
  return pdfFile([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}]${rotation} /Resources << /Font << ${fontRefs} >>${xobjectEntry} >> /Contents 4 0 R >>`,
    `<< /Length ${Buffer.byteLength(content, "latin1")} >>\nstream\n${content}\nendstream`,
    ...fonts,
    ...objects,
    ...xobjects,
  ]);
}
