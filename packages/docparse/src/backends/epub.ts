import path from "node:path/posix";
import { ZipArchive as Zip, type ZipArchive } from "../archive/zip-archive.ts";
import type { BackendInput, FormatBackend } from "../backend.ts";
import { DocumentLoadError, type DocumentModel, type FigureItem } from "../model.ts";
import { childrenNamed, descendants, parseXml, textOf, type XmlElement } from "../ooxml/xml.ts";
import { SectionedDocument } from "../sections.ts";
import { EPUB } from "../sniff.ts";
import { htmlBackend } from "./html.ts";

/** Media types of spine documents read as HTML. */
const HTML_TYPES = new Set(["application/xhtml+xml", "text/html", "application/x-dtbook+xml"]);

function readXml(zip: ZipArchive, name: string): XmlElement {
  const member = zip.find(name);
  if (!member) throw new DocumentLoadError(`The EPUB has no ${name}`);
  return parseXml(new TextDecoder().decode(zip.read(member)), name);
}

/** The package document's path: META-INF/container.xml's first rootfile, else the archive's only `.opf`. */
function packagePath(zip: ZipArchive): string {
  if (zip.find("META-INF/container.xml")) {
    const rootfile = descendants(readXml(zip, "META-INF/container.xml"), "rootfile")[0];
    if (rootfile?.attrs["full-path"]) return rootfile.attrs["full-path"];
  }
  const opf = zip.members.filter((m) => /\.opf$/i.test(m.name));
  if (opf.length === 1) return opf[0].name;
  throw new DocumentLoadError("The EPUB names no package document (META-INF/container.xml has no rootfile)");
}

async function loadEpub(input: BackendInput): Promise<DocumentModel> {
  if (!input.bytes || input.bytes.length === 0) throw new DocumentLoadError("The EPUB is empty");
  const zip = new Zip(input.bytes, "EPUB");
  if (zip.find("META-INF/encryption.xml")) {
    const encryption = readXml(zip, "META-INF/encryption.xml");
    // Font obfuscation is listed there too; only encrypted content documents stop the read.
    const encrypted = descendants(encryption, "CipherReference").map((ref) => ref.attrs.URI ?? "");
    if (encrypted.some((uri) => /\.(x?html?|xml)$/i.test(uri))) {
      throw new DocumentLoadError("The EPUB is protected by DRM: its chapters are encrypted");
    }
  }
  const opfPath = packagePath(zip);
  const opf = readXml(zip, opfPath);
  const base = path.dirname(opfPath) === "." ? "" : path.dirname(opfPath);
  const metadata = descendants(opf, "metadata")[0];
  const title = metadata ? descendants(metadata, "title").map(textOf)[0]?.trim() : undefined;
  const creators = metadata ? descendants(metadata, "creator").map((c) => textOf(c).trim()) : [];
  const manifest = new Map<string, { href: string; type: string }>();
  for (const item of descendants(opf, "item")) {
    if (item.attrs.id && item.attrs.href) {
      manifest.set(item.attrs.id, {
        href: decodeURIComponent(item.attrs.href),
        type: item.attrs["media-type"] ?? "",
      });
    }
  }
  const spine = childrenNamed(descendants(opf, "spine")[0], "itemref").map((ref) => ref.attrs.idref ?? "");
  if (spine.length === 0) throw new DocumentLoadError("The EPUB has an empty spine: it lists no chapters");
  const out = new SectionedDocument();
  if (title) out.heading(title, 1);
  if (creators.length > 0) out.text(creators.join(", "));
  let chapters = 0;
  for (const id of spine) {
    const item = manifest.get(id);
    if (!item) continue;
    const name = path.normalize(path.join(base, item.href));
    const member = zip.find(name);
    if (!member) {
      out.warnings.push(`The EPUB's chapter ${name} is missing from the archive`);
      continue;
    }
    let bytes: Uint8Array;
    try {
      bytes = zip.read(member);
    } catch (error) {
      if (!(error instanceof DocumentLoadError)) throw error;
      out.warnings.push(error.message);
      continue;
    }
    if (item.type.startsWith("image/")) {
      // A spine page that is a picture (comics, covers).
      out.newPage();
      out.sink.add<FigureItem>({
        label: "figure",
        caption: null,
        source: name,
        furniture: false,
        prov: [{ page: out.page(), bbox: null, charSpan: null }],
      });
      continue;
    }
    if (!HTML_TYPES.has(item.type) && !/\.x?html?$/i.test(name)) continue;
    try {
      const doc = await htmlBackend.load({
        ...input,
        bytes,
        text: undefined,
        mimeType: "application/xhtml+xml",
      });
      // Each chapter on a page of its own; the book's title is the only level-1 heading.
      out.append(doc, { levelShift: title ? 1 : 0 });
      chapters++;
    } catch (error) {
      if (!(error instanceof DocumentLoadError)) throw error;
      out.warnings.push(`The EPUB's chapter ${name} was not read: ${error.message}`);
    }
  }
  if (chapters === 0 && !out.sink.items.some((item) => item.label === "figure")) {
    throw new DocumentLoadError("The EPUB has no readable chapters");
  }
  return out.model(input.mimeType, "epub");
}

/**
 * EPUB e-books (2 and 3): the book's title and authors on a first page, then the spine in order, each chapter read by the HTML
 * backend on a page of its own (images as figures). DRM-encrypted books are a DocumentLoadError saying so.
 */
export const epubBackend: FormatBackend = {
  name: "epub",
  mimeTypes: [EPUB],
  load: loadEpub,
};
