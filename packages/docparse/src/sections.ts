import type { BackendInput, BackendRegistry } from "./backend.ts";
import {
  DOCUMENT_MODEL_VERSION,
  type DocItem,
  DocumentLoadError,
  type DocumentModel,
  type HeadingItem,
  ItemSink,
  type ModelPage,
  type TextItem,
} from "./model.ts";
import { mimeTypeOfName, sniffMimeType } from "./sniff.ts";

/**
 * A document assembled from parts: a container (an email, an archive, an e-book) whose own text comes first and
 * whose embedded files are each parsed by their own backend and added as a section of the same model, their
 * pages after the container's. Nesting (an archive in an email in an archive) is bounded by MAX_NESTING.
 */

/** Containers inside containers read at most this deep; deeper ones are named, not read. */
export const MAX_NESTING = 4;

export class SectionedDocument {
  readonly sink = new ItemSink();
  readonly pages: ModelPage[] = [];
  readonly warnings: string[] = [];

  /** Starts a new page without geometry and returns its number. */
  newPage(): number {
    const pageNumber = this.pages.length + 1;
    this.pages.push({ pageNumber, size: null });
    return pageNumber;
  }

  /** The current page, started when there is none. */
  page(): number {
    return this.pages.length === 0 ? this.newPage() : this.pages.length;
  }

  heading(text: string, level: number, page = this.page()): void {
    this.sink.add<HeadingItem>({
      label: "section_header",
      level,
      text,
      furniture: false,
      prov: [{ page, bbox: null, charSpan: null }],
    });
  }

  text(text: string, label: TextItem["label"] = "text"): void {
    if (text.trim() === "") return;
    this.sink.add<TextItem>({
      label,
      text,
      furniture: false,
      prov: [{ page: this.page(), bbox: null, charSpan: null }],
    } as TextItem);
  }

  /**
   * Adds a parsed model's items: on the current page when `samePage` and the model has one page without geometry,
   * else on new pages after the current ones. Headings are pushed `levelShift` levels down; char spans are
   * dropped (they point into the part's own source).
   */
  append(
    doc: DocumentModel,
    options: { levelShift?: number; samePage?: boolean; heading?: { text: string; level: number } } = {},
  ): void {
    const shift = options.levelShift ?? 0;
    const flat = options.samePage && doc.pages.length <= 1 && (doc.pages[0]?.size ?? null) === null;
    const offset = flat ? this.page() - 1 : this.pages.length;
    if (!flat) {
      for (const page of doc.pages) this.pages.push({ ...page, pageNumber: page.pageNumber + offset });
      if (doc.pages.length === 0) this.newPage();
    }
    // The heading naming the part opens its first page.
    if (options.heading)
      this.heading(options.heading.text, options.heading.level, flat ? this.page() : offset + 1);
    for (const item of doc.items) {
      const { id: _id, readingOrder: _order, ...rest } = item;
      const moved = {
        ...rest,
        prov: item.prov.map((p) => ({ ...p, page: flat ? this.page() : p.page + offset, charSpan: null })),
      } as Omit<DocItem, "id" | "readingOrder">;
      // A part's title is a heading under the part's own heading.
      if (moved.label === "title" && shift > 0) {
        Object.assign(moved, { label: "section_header", level: 1 });
      }
      if (moved.label === "section_header")
        (moved as HeadingItem).level = Math.min(6, (moved as HeadingItem).level + shift);
      this.sink.add(moved as DocItem);
    }
    this.warnings.push(...doc.warnings);
  }

  model(mimeType: string, backend: string): DocumentModel {
    if (this.pages.length === 0) this.newPage();
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType,
      backend,
      pages: this.pages,
      items: this.sink.items,
      warnings: this.warnings,
    };
  }
}

/**
 * What an embedded file is read as: its content's type when the content tells one (a PDF, a DOCX, an email),
 * else its name's (markdown, rst and csv all look like text), else what its container declared, else plain text
 * when its content is text: the first of these the registry reads. Null when none is.
 */
export function embeddedType(
  registry: BackendRegistry,
  bytes: Uint8Array,
  name: string | null,
  declared: string | null,
): string | null {
  const sniffed = sniffMimeType(bytes);
  const strong = sniffed && !["text/plain", "application/xml"].includes(sniffed) ? sniffed : null;
  const candidates = [strong, name ? mimeTypeOfName(name) : null, declared, sniffed];
  return candidates.find((type) => type && type !== "application/octet-stream" && registry.get(type)) ?? null;
}

/**
 * Parses an embedded file with the registry; a file that cannot be read (an unsupported type, a broken or
 * encrypted file) is a warning naming it and why, not a failure of the container. Null when it was not read.
 */
export async function loadEmbedded(
  registry: BackendRegistry,
  parent: BackendInput,
  file: { bytes: Uint8Array; name: string | null; declared: string | null },
  what: string,
  warnings: string[],
): Promise<DocumentModel | null> {
  const depth = (parent.depth ?? 0) + 1;
  const label = file.name ? `${what} ${file.name}` : what;
  if (file.bytes.length === 0) {
    warnings.push(`The ${label} is empty`);
    return null;
  }
  const type = embeddedType(registry, file.bytes, file.name, file.declared);
  const backend = type ? registry.get(type) : undefined;
  if (!type || !backend) {
    const said =
      file.declared && file.declared !== "application/octet-stream" ? file.declared : "unknown type";
    warnings.push(`The ${label} (${said}) was not read: its type is not supported`);
    return null;
  }
  if (depth > MAX_NESTING) {
    warnings.push(`The ${label} was not read: containers are nested more than ${MAX_NESTING} deep`);
    return null;
  }
  try {
    return await backend.load({
      ...parent,
      bytes: file.bytes,
      text: undefined,
      mimeType: type,
      pageRange: null,
      depth,
    });
  } catch (error) {
    if (!(error instanceof DocumentLoadError)) throw error;
    warnings.push(`The ${label} was not read: ${error.message}`);
    return null;
  }
}
