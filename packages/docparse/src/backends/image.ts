import type { FormatBackend } from "../backend.ts";

/**
 * Images (PNG, JPEG, TIFF with every page, WebP, GIF, AVIF): OCR, then the paginated layout (images/load.ts),
 * loaded on first use.
 */
export const imageBackend: FormatBackend = {
  name: "image",
  // What images/decode.ts reads (sharp's png, jpeg, tiff, webp, gif and heif/AVIF decoders).
  mimeTypes: ["image/png", "image/jpeg", "image/tiff", "image/webp", "image/gif", "image/avif"],
  load: async (input) => (await import("../images/load.ts")).loadImage(input),
};
