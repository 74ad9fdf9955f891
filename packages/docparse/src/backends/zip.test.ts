import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { crc32, deflateRawSync } from "node:zlib";
import { zipSync } from "fflate";
import { ARCHIVE_LIMITS } from "../archive/zip-archive.ts";
import { parseDocument } from "../index.ts";
import { DocumentLoadError } from "../model.ts";
import { MAX_NESTING } from "../sections.ts";
import { sniffMimeType } from "../sniff.ts";

const ZIP = "application/zip";
const utf8 = (text: string) => new TextEncoder().encode(text);

async function refused(bytes: Uint8Array, pattern: RegExp) {
  await assert.rejects(parseDocument({ bytes, mimeType: ZIP }), (error: unknown) => {
    assert.ok(error instanceof DocumentLoadError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
}

/** A zip of one deflated entry whose header claims `claimed` bytes and, optionally, the encryption flag. */
function rawZip(
  name: string,
  data: Uint8Array,
  options: { claimed?: number; encrypted?: boolean } = {},
): Uint8Array {
  const packed = deflateRawSync(data);
  const nameBytes = Buffer.from(name);
  const flags = options.encrypted ? 1 : 0;
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(flags, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(crc32(data), 14);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(options.claimed ?? data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(flags, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc32(data), 16);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(options.claimed ?? data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + nameBytes.length, 12);
  end.writeUInt32LE(30 + nameBytes.length + packed.length, 16);
  return new Uint8Array(Buffer.concat([local, nameBytes, packed, central, nameBytes, end]));
}

describe("ZIP archives", () => {
  test("each member is parsed by its own backend, one section per member, pages in order", async () => {
    const bytes = zipSync({
      "report/summary.md": utf8("# Summary\n\nThe archive's markdown words."),
      "report/data.csv": utf8("region,total\nNorth,12\nSouth,30\n"),
      "report/page.html": utf8("<html><body><p>Words from an HTML page.</p></body></html>"),
      "report/": new Uint8Array(0),
      "__MACOSX/report/._summary.md": utf8("resource fork"),
      "report/unknown.bin": new Uint8Array([0, 1, 2, 3, 0, 0, 0, 255]),
    });
    assert.equal(sniffMimeType(bytes), ZIP);
    const { document, result } = await parseDocument({ bytes, mimeType: "application/octet-stream" });
    assert.equal(document.backend, "zip");
    const headings = document.items.filter((item) => item.label === "section_header" && item.level === 1);
    assert.deepEqual(
      headings.map((h) => (h.label === "section_header" ? h.text : "")),
      ["report/summary.md", "report/data.csv", "report/page.html", "report/unknown.bin"],
    );
    assert.match(result.markdown, /## Summary\n\nThe archive's markdown words\./);
    assert.match(result.markdown, /Words from an HTML page\./);
    assert.ok(document.items.some((i) => i.label === "table" && i.cells.some((c) => c.text === "South")));
    assert.doesNotMatch(result.markdown, /resource fork/);
    assert.ok(
      document.warnings.some((w) => /unknown\.bin.*not (read|supported)/.test(w)),
      document.warnings.join("; "),
    );
    // Each member on its own page(s), in order.
    const pages = headings.slice(0, 3).map((h) => h.prov[0].page);
    assert.deepEqual(pages, [1, 2, 3]);
  });

  test("limits: a zip bomb by ratio, too many entries, an encrypted archive, nesting too deep", async () => {
    const bomb = rawZip("zeros.txt", new Uint8Array(32 << 20));
    await refused(bomb, /zip bomb.*expand/);
    const many: Record<string, Uint8Array> = {};
    for (let i = 0; i <= ARCHIVE_LIMITS.maxEntries; i++) many[`f${i}.txt`] = utf8("x");
    await refused(zipSync(many), /entries, more than/);
    await refused(rawZip("secret.txt", utf8("hidden words"), { encrypted: true }), /password-protected/);
    // A member that inflates beyond the size it declares stops there.
    await refused(
      rawZip("liar.txt", utf8("a".repeat(5000)), { claimed: 10 }),
      /cannot be inflated|could be read/,
    );
    let nested = zipSync({ "deep.txt": utf8("The deepest words.") });
    for (let i = 0; i < MAX_NESTING + 1; i++) nested = zipSync({ [`level${i}.zip`]: nested });
    await refused(nested, /nested more than/);
    let shallow = zipSync({ "deep.txt": utf8("The deepest words.") });
    for (let i = 0; i < MAX_NESTING - 1; i++) shallow = zipSync({ [`level${i}.zip`]: shallow });
    const { result } = await parseDocument({ bytes: shallow, mimeType: ZIP });
    assert.match(result.markdown, /The deepest words\./);
  });

  test("bad input: empty, not a zip, truncated, only directories", async () => {
    await refused(new Uint8Array(0), /empty/);
    await refused(utf8("PK but not really a zip archive at all"), /not a zip|damaged|missing/);
    const good = zipSync({ "a.txt": utf8("Alpha words."), "b.txt": utf8("Beta words.") });
    for (let cut = 1; cut < 8; cut++) {
      try {
        await parseDocument({ bytes: good.subarray(0, Math.floor((good.length * cut) / 8)), mimeType: ZIP });
      } catch (error) {
        assert.ok(error instanceof DocumentLoadError, `cut ${cut}/8: ${error}`);
      }
    }
    await refused(zipSync({ "empty/": new Uint8Array(0) }), /holds no files/);
  });
});
