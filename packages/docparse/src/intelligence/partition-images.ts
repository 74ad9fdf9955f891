import type { DocumentModel } from "../model.ts";
import { closePdf } from "../pdf/open.ts";
import type { ProviderImage } from "../providers/provider.ts";
import { pdfPageImage, rasterPageImage } from "./page-images.ts";
import { openPictures } from "./pictures.ts";

/** Pages shown to a vision model for one partition at most; a longer partition is sent as text. */
export const MAX_PARTITION_IMAGES = 20;

/**
 * The pages of a partition as PNG pictures, for an extraction with `skip_ocr` on a vision provider: rendered from
 * a PDF, the pages of an image file, or a slide deck's slides as LibreOffice prints them (see pictures.ts). Null
 * when the source has no pictures to give (text formats, word processing and spreadsheet files, too many
 * pages): the caller then sends the partition's text.
 */
export async function partitionImages(
  model: DocumentModel,
  source: { bytes: Uint8Array | null },
  pages: readonly number[],
): Promise<ProviderImage[] | null> {
  if (!source.bytes || pages.length === 0 || pages.length > MAX_PARTITION_IMAGES) return null;
  const toImage = (pngBase64: string): ProviderImage => ({
    mimeType: "image/png",
    data: new Uint8Array(Buffer.from(pngBase64, "base64")),
  });
  const pictures = await openPictures(model, source, true);
  try {
    const images: ProviderImage[] = [];
    for (const page of pages) {
      if (pictures.pdf) images.push(toImage((await pdfPageImage(pictures.pdf, page)).pngBase64));
      else if (pictures.raster) {
        const width = model.pages.find((entry) => entry.pageNumber === page)?.size?.width ?? 612;
        images.push(toImage((await rasterPageImage(pictures.raster, page, width)).pngBase64));
      } else return null;
    }
    return images;
  } finally {
    if (pictures.pdf) await closePdf(pictures.pdf);
  }
}
