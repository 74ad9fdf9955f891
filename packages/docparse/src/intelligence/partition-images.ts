import type { DocumentModel } from "../model.ts";
import { closePdf, openPdf } from "../pdf/open.ts";
import type { ProviderImage } from "../providers/provider.ts";
import { pdfPageImage, rasterPageImage } from "./page-images.ts";

/** Pages shown to a vision model for one partition at most; a longer partition is sent as text. */
export const MAX_PARTITION_IMAGES = 20;

/**
 * The pages of a partition as PNG pictures, for an extraction with `skip_ocr` on a vision provider: rendered from
 * a PDF, or the pages of an image file. Null when the source has no pictures to give (text formats, Office files,
 * too many pages): the caller then sends the partition's text.
 */
export async function partitionImages(
  model: DocumentModel,
  source: { bytes: Uint8Array | null },
  pages: readonly number[],
): Promise<ProviderImage[] | null> {
  const bytes = source.bytes;
  if (!bytes || pages.length === 0 || pages.length > MAX_PARTITION_IMAGES) return null;
  const toImage = (pngBase64: string): ProviderImage => ({
    mimeType: "image/png",
    data: new Uint8Array(Buffer.from(pngBase64, "base64")),
  });
  if (model.backend === "image") {
    const images: ProviderImage[] = [];
    for (const page of pages) {
      const width = model.pages.find((entry) => entry.pageNumber === page)?.size?.width ?? 612;
      images.push(toImage((await rasterPageImage(bytes, page, width)).pngBase64));
    }
    return images;
  }
  if (model.backend !== "pdf") return null;
  const pdf = await openPdf(bytes);
  try {
    const images: ProviderImage[] = [];
    for (const page of pages) images.push(toImage((await pdfPageImage(pdf, page)).pngBase64));
    return images;
  } finally {
    await closePdf(pdf);
  }
}
