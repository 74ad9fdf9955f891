import sharp from "sharp";
import { detectBarcodes } from "../barcodes/detect.ts";
import type { PageGeometry } from "./geometry.ts";

/**
 * Reads the barcodes and QR codes of a page from a grayscale PNG of it (parsing_options.barcode_detection);
 * `pointsPerPixel` maps the image's pixels to the page's points. Nothing found is an empty list.
 */
export async function barcodesOf(
  png: Buffer,
  pointsPerPixel: number,
): Promise<NonNullable<PageGeometry["barcodes"]>> {
  const { data, info } = await sharp(png).greyscale().raw().toBuffer({ resolveWithObject: true });
  const codes = await detectBarcodes(
    { data, width: info.width, height: info.height, channels: 1 },
    pointsPerPixel,
  );
  return codes.map((code) => ({ box: code.box, text: code.text, format: code.format }));
}
