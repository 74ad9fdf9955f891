import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseDocument } from "../index.ts";
import { binaryProp, compoundFile, propertiesStream, stringProp, type TestNode } from "../mail/test-msg.ts";
import { DocumentLoadError } from "../model.ts";
import { sniffMimeType } from "../sniff.ts";
import { decompressRtf } from "./rtf-compressed.ts";

const MSG = "application/vnd.ms-outlook";
const utf8 = (text: string) => new TextEncoder().encode(text);

function attachment(index: number, props: TestNode[]): TestNode {
  return {
    name: `__attach_version1.0_#${index.toString(16).toUpperCase().padStart(8, "0")}`,
    children: [propertiesStream(8), ...props],
  };
}

/** A message with an HTML body, a CSV attachment and an attached Outlook item holding a text body. */
function sampleMessage(): Uint8Array {
  const csv = utf8("city,population\nLisbon,545000\nPorto,232000\n");
  // Above the 4 KiB mini-stream cutoff, so it is read through the FAT.
  const longBody = `Quarterly figures follow.\n\n${"Revenue grew in every region. ".repeat(200)}`;
  return compoundFile([
    propertiesStream(32, new Date("2024-03-05T10:20:30Z")),
    stringProp(0x0037, "Quarterly report ✓"),
    stringProp(0x0c1a, "Ada Lovelace"),
    stringProp(0x0c1f, "ada@example.org"),
    stringProp(0x0e04, "Charles Babbage"),
    stringProp(0x0e03, "Mary Somerville"),
    stringProp(0x1000, longBody),
    binaryProp(
      0x1013,
      utf8("<html><body><h1>Figures</h1><p>Revenue grew in every region.</p></body></html>"),
    ),
    attachment(0, [
      stringProp(0x3707, "cities.csv"),
      stringProp(0x370e, "text/csv"),
      binaryProp(0x3701, csv),
    ]),
    attachment(1, [
      stringProp(0x3001, "Forwarded note"),
      {
        name: "__substg1.0_3701000D",
        children: [
          propertiesStream(24),
          stringProp(0x0037, "Earlier note"),
          stringProp(0x1000, "The analytical engine weaves algebraic patterns."),
        ],
      },
    ]),
  ]);
}

describe("Outlook MSG", () => {
  test("header, HTML body, an attachment as a table and an attached message, from bytes alone", async () => {
    const bytes = sampleMessage();
    assert.equal(sniffMimeType(bytes), MSG);
    const { document, result } = await parseDocument({ bytes, mimeType: "application/octet-stream" });
    assert.equal(document.backend, "msg");
    const md = result.markdown;
    assert.match(md, /^# Quarterly report ✓/);
    assert.match(md, /From: Ada Lovelace <ada@example\.org>/);
    assert.match(md, /To: Charles Babbage/);
    assert.match(md, /Cc: Mary Somerville/);
    assert.match(md, /Date: 2024-03-05T10:20:30\.000Z/);
    assert.match(md, /Revenue grew in every region/);
    assert.match(md, /Attachment: cities\.csv/);
    const table = document.items.find((item) => item.label === "table");
    assert.ok(table && table.label === "table");
    assert.ok(table.cells.some((cell) => cell.text === "Lisbon"));
    // The attachment starts a page of its own.
    assert.ok((table.prov[0]?.page ?? 0) > 1);
    assert.match(md, /## Earlier note/);
    assert.match(md, /analytical engine weaves/);
  });

  test("a message with only a text body above the mini-stream cutoff", async () => {
    const body = `Dear reader,\n\n${"The compound file keeps large streams in sectors. ".repeat(120)}`;
    const bytes = compoundFile([propertiesStream(32), stringProp(0x0037, "Long"), stringProp(0x1000, body)]);
    const { result } = await parseDocument({ bytes, mimeType: MSG });
    assert.match(result.markdown, /Dear reader/);
    assert.equal((result.markdown.match(/compound file keeps/g) ?? []).length, 120);
  });

  test("compressed RTF bodies are decompressed (the example of MS-OXRTFCP)", () => {
    const compressed = Buffer.from(
      "2d0000002b0000004c5a4675f1c5c7a703000a007263706731323542320af32068656c090020627705b06c647d0a800fa0",
      "hex",
    );
    assert.equal(
      Buffer.from(decompressRtf(new Uint8Array(compressed))).toString("latin1"),
      "{\\rtf1\\ansi\\ansicpg1252\\pard hello world}\r\n",
    );
    // A reference that crosses the write position (the spec's second example).
    const crossing = Buffer.from("1a0000001c0000004c5a4675e2d44b51410004205758595a0d6e7d010eb0", "hex");
    assert.equal(
      Buffer.from(decompressRtf(new Uint8Array(crossing))).toString("latin1"),
      "{\\rtf1 WXYZWXYZWXYZWXYZWXYZ}",
    );
  });

  test("bad input: not a compound file, a compound file without message properties, damage, truncation", async () => {
    const refuse = async (bytes: Uint8Array, pattern: RegExp) => {
      await assert.rejects(parseDocument({ bytes, mimeType: MSG }), (error: unknown) => {
        assert.ok(error instanceof DocumentLoadError, String(error));
        assert.match(error.message, pattern);
        return true;
      });
    };
    await refuse(utf8("just text, not an Outlook item at all, no signature"), /not|binary/i);
    await refuse(new Uint8Array(0), /empty/);
    await refuse(compoundFile([{ name: "WordDocument", data: utf8("x".repeat(100)) }]), /./);
    const good = sampleMessage();
    // Cut at every 8th of its length: a reason or a (partial) result, never another error.
    for (let i = 1; i < 8; i++) {
      try {
        await parseDocument({ bytes: good.subarray(0, Math.floor((good.length * i) / 8)), mimeType: MSG });
      } catch (error) {
        assert.ok(error instanceof DocumentLoadError, `cut ${i}/8: ${error}`);
      }
    }
    // A FAT chain that loops on itself.
    const looped = new Uint8Array(good);
    const view = new DataView(looped.buffer);
    const dirStart = view.getUint32(0x30, true);
    view.setUint32(512 + dirStart * 4, dirStart, true);
    await refuse(looped, /damaged|loops|not|no /i);
  });
});
