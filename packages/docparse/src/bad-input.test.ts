import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, test } from "node:test";
import { crc32, deflateRawSync } from "node:zlib";
import { chooseMimeType, defaultRegistry, parseDocument, shutdownOfficePool } from "./index.ts";
import { DocumentLoadError } from "./model.ts";
import { corpusPath, NO_CORPUS } from "./test-corpus.ts";

/**
 * Every backend of the registry, fed broken, truncated, zip-bomb and mislabelled files: each ends with a
 * DocumentLoadError (or, where the damaged bytes are still a valid document of the type, a result), never
 * another exception, never a hang, and within bounded memory.
 */

/** Longer than any backend should need to refuse a file; a parse still running then is a hang. */
const HANG_MS = 90_000;

function lcgBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

const packedCache = new Map<Uint8Array, Buffer>();

/** Deflates each distinct buffer once (the bomb's entries share one). */
function deflated(data: Uint8Array): Buffer {
  let packed = packedCache.get(data);
  if (!packed) {
    packed = deflateRawSync(data, { level: 9 });
    packedCache.set(data, packed);
  }
  return packed;
}

/** A zip with the given entries, each deflated; `claimed` overrides an entry's declared uncompressed size. */
function zip(entries: { name: string; data: Uint8Array; claimed?: number }[]): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const packed = deflated(entry.data);
    const checksum = crc32(entry.data);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(8, 8);
    header.writeUInt32LE(checksum, 14);
    header.writeUInt32LE(packed.length, 18);
    header.writeUInt32LE(entry.claimed ?? entry.data.length, 22);
    header.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(checksum, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(entry.claimed ?? entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(header, name, packed);
    centrals.push(central, name);
    offset += header.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/** 256 MiB of zeros deflated into a few hundred KiB, as the main part of an OOXML and OpenDocument package. */
function zipBomb(): Uint8Array {
  const zeros = new Uint8Array(256 << 20);
  const types = new TextEncoder().encode(
    '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
  );
  return zip([
    { name: "mimetype", data: new TextEncoder().encode("application/vnd.oasis.opendocument.text") },
    { name: "[Content_Types].xml", data: types },
    { name: "word/document.xml", data: zeros },
    { name: "xl/workbook.xml", data: zeros },
    { name: "ppt/presentation.xml", data: zeros },
    { name: "content.xml", data: zeros },
    { name: "Index/Document.iwa", data: zeros },
  ]);
}

type Outcome = "load-error" | "parsed";

async function outcomeOf(bytes: Uint8Array, mimeType: string): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${mimeType}: no answer within ${HANG_MS} ms`)), HANG_MS);
  });
  try {
    await Promise.race([parseDocument({ bytes, mimeType }), hang]);
    return "parsed";
  } catch (error) {
    if (error instanceof DocumentLoadError) {
      assert.ok(error.message.length > 10, `${mimeType}: a reason is given`);
      return "load-error";
    }
    throw new Error(`${mimeType}: ${error instanceof Error ? `${error.name}: ${error.message}` : error}`);
  } finally {
    clearTimeout(timer);
  }
}

describe("bad input to every backend", { skip: NO_CORPUS }, () => {
  after(() => shutdownOfficePool());
  const types = defaultRegistry.mimeTypes();

  test("random bytes, an empty file and a zip bomb are refused by every type", async () => {
    const random = lcgBytes(64 * 1024, 7);
    const bomb = zipBomb();
    for (const type of types) {
      const started = performance.now();
      assert.equal(await outcomeOf(random, type), "load-error", `random bytes as ${type}`);
      assert.equal(await outcomeOf(bomb, type), "load-error", `a zip bomb as ${type}`);
      const empty = await outcomeOf(new Uint8Array(0), type);
      // An empty text is an empty document (backends that read text count its pages); other types need bytes.
      if (!defaultRegistry.get(type)?.countPages)
        assert.equal(empty, "load-error", `an empty file as ${type}`);
      if (process.env.SVC_TEST_VERBOSE) console.log(type, Math.round(performance.now() - started), "ms");
    }
    const rssMb = process.resourceUsage().maxRSS / 1024;
    assert.ok(rssMb < 3000, `peak memory ${rssMb.toFixed(0)} MB`);
  });

  test("truncated and mislabelled files end with a reason or a result, never another error", async () => {
    const samples = [
      corpusPath("docling/tests/data", "pdf/sources/2305.03393v1-pg9.pdf"),
      corpusPath("docling/tests/data", "docx/sources/lorem_ipsum.docx"),
      corpusPath("docling/tests/data", "xls/sources/legacy_sample.xls"),
      corpusPath("docling/tests/data", "html/sources/example_01.html"),
      corpusPath("docling/tests/data", "html/sources/example_image_01.png"),
    ].map((file) => new Uint8Array(readFileSync(file)));
    for (const sample of samples) {
      for (const bytes of [sample.subarray(0, Math.floor(sample.length / 2)), sample]) {
        // The bytes choose the backend: types whose declaration the content overrides are read once.
        const chosen = new Set(types.map((type) => chooseMimeType({ bytes, mimeType: type }).mimeType));
        for (const type of chosen) await outcomeOf(bytes, type);
      }
    }
  });
});
