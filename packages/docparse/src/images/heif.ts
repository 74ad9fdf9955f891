import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DocumentLoadError } from "../model.ts";

/**
 * HEIC/HEIF photos (HEVC inside HEIF), which sharp's own libheif cannot decode (it is built without an HEVC
 * decoder): Debian's `heif-convert` (libheif-examples, with libde265) writes the primary image as a PNG, with
 * the file's rotation and mirroring applied.
 */

const PROGRAM = "heif-convert";
/** A phone photo converts in well under a second; a large one in a few. */
const CONVERT_TIMEOUT_MS = 120_000;
/** HEIF brands of HEVC-coded images; AVIF's brands (avif, avis) are read by sharp itself. */
const HEVC_BRANDS = new Set(["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs"]);
const HEIF_BRANDS = new Set([...HEVC_BRANDS, "mif1", "msf1", "avif", "avis"]);

/** The ISO-BMFF brands of a file (major, then compatible ones), or null when it has no `ftyp` box first. */
function brands(bytes: Uint8Array): string[] | null {
  if (bytes.length < 16) return null;
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (ascii(4, 8) !== "ftyp") return null;
  const size = Math.min(bytes.length, new DataView(bytes.buffer, bytes.byteOffset).getUint32(0));
  const found = [ascii(8, 12)];
  for (let at = 16; at + 4 <= size; at += 4) found.push(ascii(at, at + 4));
  return found;
}

/** True for a HEIF file (HEIC or AVIF) by its `ftyp` brands. */
export function isHeif(bytes: Uint8Array): boolean {
  return brands(bytes)?.some((brand) => HEIF_BRANDS.has(brand)) ?? false;
}

/** True for a HEIF file whose brands say HEVC (HEIC): one sharp cannot decode. */
export function isHeic(bytes: Uint8Array): boolean {
  const found = brands(bytes);
  if (!found) return false;
  return (
    HEVC_BRANDS.has(found[0]) || (!found.includes("avif") && found.some((brand) => HEVC_BRANDS.has(brand)))
  );
}

/**
 * The primary image of a HEIC file as PNG bytes. A damaged file, or a machine without heif-convert, is a
 * DocumentLoadError with code INVALID_FILE and the reason.
 *
 * @example
 * const png = await heicToPng(await readFile("photo.heic"));
 */
export async function heicToPng(bytes: Uint8Array): Promise<Uint8Array> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "svc-heif-"));
  try {
    const input = path.join(dir, "in.heic");
    await writeFile(input, bytes);
    await new Promise<void>((resolve, reject) => {
      execFile(
        PROGRAM,
        [input, path.join(dir, "out.png")],
        { timeout: CONVERT_TIMEOUT_MS, killSignal: "SIGKILL", maxBuffer: 1024 * 1024 },
        (error, _stdout, stderr) => {
          if (!error) resolve();
          else if ((error as NodeJS.ErrnoException).code === "ENOENT") {
            reject(
              new DocumentLoadError(
                "HEIC images need heif-convert (Debian's libheif-examples)",
                "INVALID_FILE",
              ),
            );
          } else {
            const why = String(stderr).trim().split("\n").at(-1) || error.message;
            reject(new DocumentLoadError(`The HEIC image could not be read: ${why}`, "INVALID_FILE"));
          }
        },
      );
    });
    // Several top-level images are written as out-1.png, out-2.png...: the first is the primary one.
    const written = (await readdir(dir)).filter((name) => name.endsWith(".png")).sort();
    if (written.length === 0) throw new DocumentLoadError("The HEIC image holds no picture", "INVALID_FILE");
    return await readFile(path.join(dir, written[0]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
