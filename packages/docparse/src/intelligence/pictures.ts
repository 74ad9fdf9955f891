import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import { officeAvailable, officePool } from "../libreoffice/pool.ts";
import type { DocumentModel, FigureItem } from "../model.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import { cropPng, dataUriBytes, lowResolutionPage, pdfCrop, rasterCrop } from "./page-images.ts";

/**
 * The source document as pictures can be made of it: an open PDF, or an image file's bytes. A slide deck is
 * printed to PDF by LibreOffice (one page per slide), `printed` then: its pages are pictures of the slides, not
 * a PDF to read charts or text from.
 */
export interface Pictures {
  pdf: PDFDocumentProxy | null;
  raster: Uint8Array | null;
  printed: boolean;
}

export const NO_PICTURES: Pictures = { pdf: null, raster: null, printed: false };

export async function openPictures(
  model: DocumentModel,
  source: { bytes: Uint8Array | null },
  slides: boolean,
): Promise<Pictures> {
  const bytes = source.bytes;
  if (!bytes || bytes.byteLength === 0) return NO_PICTURES;
  if (model.backend === "pdf" && isPdf(bytes)) {
    try {
      return { pdf: await openPdf(bytes), raster: null, printed: false };
    } catch (error) {
      model.warnings.push(`Enrichment could not open the PDF again: ${(error as Error).message}`);
      return NO_PICTURES;
    }
  }
  if (model.backend === "image") return { pdf: null, raster: bytes, printed: false };
  if (model.backend === "pptx" && slides) {
    const pdf = await printSlides(model, bytes);
    return pdf ? { pdf, raster: null, printed: true } : NO_PICTURES;
  }
  return NO_PICTURES;
}

/**
 * A slide deck (PPTX, or PPT read through it) printed to PDF by LibreOffice, when LibreOffice is installed and
 * the printout has one page per slide of the model's size (a deck with hidden slides prints fewer: no pictures).
 */
async function printSlides(model: DocumentModel, bytes: Uint8Array): Promise<PDFDocumentProxy | null> {
  const kind =
    bytes[0] === 0x50 && bytes[1] === 0x4b ? "pptx" : bytes[0] === 0xd0 && bytes[1] === 0xcf ? "ppt" : null;
  if (!kind || !officeAvailable()) {
    model.warnings.push("Pictures of slides need LibreOffice, which is not installed");
    return null;
  }
  let pdf: PDFDocumentProxy | null = null;
  try {
    const printed = await officePool().convert(bytes, kind, "pdf", "impress_pdf_Export");
    pdf = await openPdf(printed);
    const sizes = await Promise.all(
      Array.from(
        { length: pdf.numPages },
        async (_, i) => (await (pdf as PDFDocumentProxy).getPage(i + 1)).view,
      ),
    );
    const matches =
      pdf.numPages === model.pages.length &&
      model.pages.every((page, i) => {
        const [x1, y1, x2, y2] = sizes[i];
        return (
          !page.size ||
          (Math.abs(x2 - x1 - page.size.width) <= 2 && Math.abs(y2 - y1 - page.size.height) <= 2)
        );
      });
    if (matches) return pdf;
    model.warnings.push(
      "The slides' printout does not match the deck page for page (hidden slides?): no pictures",
    );
  } catch (error) {
    model.warnings.push(`The slides could not be printed for their pictures: ${(error as Error).message}`);
  }
  if (pdf) await closePdf(pdf);
  return null;
}

function isPdf(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.subarray(0, 1024)).toString("latin1");
  return head.includes("%PDF-");
}

/** The figure as PNG: cropped from the rendered PDF page or image page, or its own embedded image. */
export async function figureImage(
  model: DocumentModel,
  figure: FigureItem,
  pictures: Pictures,
): Promise<Uint8Array | null> {
  const own = dataUriBytes(figure.source);
  if (own) return own;
  const prov = figure.prov[0];
  if (!prov?.bbox) return null;
  try {
    if (pictures.pdf) return await pdfCrop(pictures.pdf, prov.page, prov.bbox);
    const size = model.pages.find((page) => page.pageNumber === prov.page)?.size;
    if (pictures.raster && size) return await rasterCrop(pictures.raster, prov.page, size.width, prov.bbox);
  } catch (error) {
    model.warnings.push(`No image of the figure on page ${prov.page}: ${(error as Error).message}`);
  }
  return null;
}

/** The figure cut from a low-resolution picture of its page (rendered once per page), or its own image. */
export async function lowResolutionCrop(
  model: DocumentModel,
  figure: FigureItem,
  pictures: Pictures,
  pages: Map<number, Promise<Uint8Array | null>>,
): Promise<Uint8Array | null> {
  const own = dataUriBytes(figure.source);
  if (own) return own;
  const prov = figure.prov[0];
  const size = model.pages.find((page) => page.pageNumber === prov?.page)?.size;
  if (!prov?.bbox || !size) return null;
  try {
    let page = pages.get(prov.page);
    if (!page) {
      page = lowResolutionPage(pictures, prov.page);
      pages.set(prov.page, page);
    }
    const picture = await page;
    return picture ? await cropPng(picture, size.width, prov.bbox) : null;
  } catch {
    // No picture only means the tones are not measured.
    return null;
  }
}
