import type { FormatBackend } from "../backend.ts";
import {
  DOCUMENT_MODEL_VERSION,
  type DocumentModel,
  ItemSink,
  type ModelPage,
  type TextItem,
} from "../model.ts";
import { inputText } from "../text-decoding.ts";

/** A blank line (only spaces or tabs) ends a paragraph. */
const PARAGRAPH_BREAK = /\r?\n[ \t]*(?:\r?\n[ \t]*)+|\r[ \t]*(?:\r[ \t]*)+/g;

/** Pages are separated by form feeds; a final form feed ends the last page and does not start an empty one. */
function countPages(text: string): number {
  let pages = 1;
  for (let at = text.indexOf("\f"); at !== -1; at = text.indexOf("\f", at + 1)) pages++;
  const last = text.lastIndexOf("\f");
  if (pages > 1 && text.slice(last + 1).trim() === "") pages--;
  return pages;
}

/**
 * Plain text: pages split at form feeds (as text extracted from paginated documents has them), paragraphs split
 * at blank lines. Line breaks inside a paragraph are kept.
 */
export const textBackend: FormatBackend = {
  name: "text",
  mimeTypes: ["text/plain"],
  countPages,
  load(input): DocumentModel {
    const { text, warnings } = inputText(input, "text");
    const sink = new ItemSink();
    const pages: ModelPage[] = [];
    let pageStart = 0;
    const pageTexts = text.split("\f");
    for (const [index, pageText] of pageTexts.entries()) {
      const pageNumber = index + 1;
      pages.push({ pageNumber, size: null });
      let offset = 0;
      const addParagraph = (end: number) => {
        const raw = pageText.slice(offset, end);
        const leading = raw.length - raw.trimStart().length;
        const body = raw.trim();
        if (body !== "") {
          const start = pageStart + offset + leading;
          sink.add<TextItem>({
            label: "text",
            text: body.replace(/\r\n?/g, "\n"),
            furniture: false,
            prov: [{ page: pageNumber, bbox: null, charSpan: [start, start + body.length] }],
          });
        }
      };
      for (const match of pageText.matchAll(PARAGRAPH_BREAK)) {
        addParagraph(match.index);
        offset = match.index + match[0].length;
      }
      addParagraph(pageText.length);
      pageStart += pageText.length + 1;
    }
    if (pages.length > countPages(text)) pages.pop();
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "text/plain",
      backend: "text",
      pages,
      items: sink.items,
      warnings,
    };
  },
};
