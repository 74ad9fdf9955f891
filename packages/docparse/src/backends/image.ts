import type { FormatBackend } from "../backend.ts";

/**
 * Images (PNG, JPEG, TIFF with every page, WebP, GIF, AVIF, HEIC/HEIF, BMP): OCR, then the paginated layout (images/load.ts),
 * loaded on first use.
 */
export const imageBackend: FormatBackend = {
  name: "image",
  // What images/decode.ts reads (sharp's png, jpeg, tiff, webp, gif and heif/AVIF decoders, and the two below).
  mimeTypes: [
    ...["image/png", "image/jpeg", "image/tiff", "image/webp", "image/gif", "image/avif"],
    // BMP by a decoder of ours (images/bmp.ts), HEIC through Debian's heif-convert (images/heif.ts).
    ...["image/bmp", "image/x-ms-bmp", "image/heic", "image/heif"],
  ],
  load: async (input) => (await import("../images/load.ts")).loadImage(input),
};
