import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { zipSync } from "fflate";
import { parseDocument } from "../index.ts";
import { DocumentLoadError } from "../model.ts";
import { sniffMimeType } from "../sniff.ts";

const EPUB = "application/epub+zip";
const utf8 = (text: string) => new TextEncoder().encode(text);

const chapter = (title: string, body: string) =>
  utf8(`<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>${title}</title></head>
<body><h1>${title}</h1>${body}</body></html>`);

/** An EPUB 3 whose manifest lists chapters in another order than its spine. */
function book(options: { encrypted?: boolean; spine?: string[] } = {}): Uint8Array {
  const spine = options.spine ?? ["cover", "c1", "c2"];
  const files: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {
    mimetype: [utf8(EPUB), { level: 0 }],
    "META-INF/container.xml": utf8(`<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`),
    "OEBPS/content.opf": utf8(`<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>The Lighthouse Keeper</dc:title><dc:creator>Ada Writer</dc:creator><dc:identifier id="id">x</dc:identifier>
  </metadata>
  <manifest>
    <item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="cover" href="images/cover.png" media-type="image/png"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine>${spine.map((id) => `<itemref idref="${id}"/>`).join("")}</spine>
</package>`),
    "OEBPS/text/chapter1.xhtml": chapter(
      "The Storm",
      '<p>Waves rose over the rocks.</p><img src="../images/cover.png" alt="The lighthouse at night"/>',
    ),
    "OEBPS/text/chapter 2.xhtml": chapter(
      "The Calm",
      "<p>Morning came quietly.</p><table><tr><th>Day</th><th>Ships</th></tr><tr><td>Monday</td><td>3</td></tr></table>",
    ),
    "OEBPS/images/cover.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
    "OEBPS/style.css": utf8("p { margin: 0 }"),
  };
  if (options.encrypted) {
    files["META-INF/encryption.xml"] =
      utf8(`<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
<enc:EncryptedData><enc:CipherData><enc:CipherReference URI="OEBPS/text/chapter1.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>`);
  }
  return zipSync(files as Parameters<typeof zipSync>[0]);
}

describe("EPUB", () => {
  test("title, author, chapters in spine order through the HTML reader, images and tables", async () => {
    const bytes = book();
    assert.equal(sniffMimeType(bytes), EPUB);
    const { document, result } = await parseDocument({ bytes, mimeType: "application/zip" });
    assert.equal(document.backend, "epub");
    const md = result.markdown;
    assert.match(md, /^# The Lighthouse Keeper\n\nAda Writer/);
    assert.ok(md.indexOf("## The Storm") > 0 && md.indexOf("## The Storm") < md.indexOf("## The Calm"), md);
    assert.match(md, /Waves rose over the rocks\./);
    assert.match(md, /Morning came quietly\./);
    assert.ok(document.items.some((i) => i.label === "figure" && i.caption === "The lighthouse at night"));
    assert.ok(document.items.some((i) => i.label === "table" && i.cells.some((c) => c.text === "Monday")));
    // The title page, then a page per spine item: the cover image (a figure) and each chapter.
    assert.equal(document.pages.length, 4);
    // Declared as a plain zip, the bytes chose EPUB: said in a warning.
    assert.ok(
      result.warnings.some((w) => /declared as application\/zip.*epub/.test(w)),
      result.warnings.join("; "),
    );
  });

  test("bad input: DRM, an empty spine, no package document, not a zip, truncated", async () => {
    const refuse = async (bytes: Uint8Array, pattern: RegExp) => {
      await assert.rejects(parseDocument({ bytes, mimeType: EPUB }), (error: unknown) => {
        assert.ok(error instanceof DocumentLoadError, String(error));
        assert.match(error.message, pattern);
        return true;
      });
    };
    await refuse(book({ encrypted: true }), /DRM/);
    await refuse(book({ spine: [] }), /empty spine/);
    await refuse(
      zipSync({ mimetype: utf8(EPUB), "readme.txt": utf8("no package") }),
      /no package document|container/,
    );
    await refuse(utf8("not an e-book, just words"), /not a zip/);
    await refuse(new Uint8Array(0), /empty/);
    const good = book();
    for (let cut = 1; cut < 8; cut++) {
      try {
        await parseDocument({ bytes: good.subarray(0, Math.floor((good.length * cut) / 8)), mimeType: EPUB });
      } catch (error) {
        assert.ok(error instanceof DocumentLoadError, `cut ${cut}/8: ${error}`);
      }
    }
  });
});
