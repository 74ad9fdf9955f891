import { SaxesParser } from "saxes";
import type { FormatBackend } from "../backend.ts";
import { jatsToMarkup } from "../markup/jats.ts";
import { BlockReader } from "../markup/read-blocks.ts";
import { element, type MarkupElement, rawText } from "../markup/tree.ts";
import {
  DOCUMENT_MODEL_VERSION,
  DocumentLoadError,
  type DocumentModel,
  type HeadingItem,
  ItemSink,
  type TextItem,
} from "../model.ts";
import { decodeMarkup } from "../text-decoding.ts";

/** Deepest element nesting kept as structure; deeper elements are folded into their ancestor at this depth. */
const MAX_DEPTH = 300;
/** Parse errors kept as warnings; past this many the file is not XML enough to read. */
const MAX_ERRORS = 50;

/**
 * Parses XML into the markup tree with saxes (a conforming, non-validating parser: no DTD is fetched, no
 * external entity is expanded). Recoverable errors (an unknown entity, a tag left open at the end) become
 * warnings; a text with no root element, or one with many errors, is a DocumentLoadError.
 */
export function parseXml(text: string): { root: MarkupElement; doctype: string | null; warnings: string[] } {
  const parser = new SaxesParser({ position: true });
  const top = element("#root");
  const stack: MarkupElement[] = [top];
  /** Elements opened beyond MAX_DEPTH: their text goes to the element at the limit. */
  let folded = 0;
  const errors: string[] = [];
  let doctype: string | null = null;
  parser.on("error", (error) => {
    errors.push(error.message);
    if (errors.length > MAX_ERRORS) throw new DocumentLoadError(`The XML is not well-formed: ${errors[0]}`);
  });
  parser.on("doctype", (value) => {
    doctype = value;
  });
  parser.on("opentag", (tag) => {
    if (stack.length > MAX_DEPTH) {
      folded++;
      return;
    }
    const attrs: Record<string, string> = {};
    for (const [name, value] of Object.entries(tag.attributes)) attrs[name] = String(value);
    const el = element(tag.name, [], attrs, parser.position, -1);
    stack[stack.length - 1].children.push(el);
    if (!tag.isSelfClosing) stack.push(el);
  });
  parser.on("closetag", (tag) => {
    if (folded > 0) {
      folded--;
      return;
    }
    if (tag.isSelfClosing) return;
    const el = stack.pop();
    if (el) el.end = parser.position;
  });
  const addText = (value: string) => {
    const parent = stack[stack.length - 1];
    parent.children.push({
      type: "text",
      value,
      start: parser.position - value.length,
      end: parser.position,
    });
  };
  parser.on("text", addText);
  parser.on("cdata", addText);
  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof DocumentLoadError) throw error;
    errors.push(error instanceof Error ? error.message : String(error));
  }
  const root = top.children.find((child): child is MarkupElement => child.type === "element");
  if (!root) {
    throw new DocumentLoadError(`The XML has no root element${errors.length > 0 ? `: ${errors[0]}` : ""}`);
  }
  const warnings =
    errors.length > 0 ? [`The XML is not well-formed (${errors.length} errors; first: ${errors[0]})`] : [];
  return { root, doctype, warnings };
}

/** A JATS (or NLM) journal article: root `article` with `front` or `body`, or a JATS doctype. */
function isJats(root: MarkupElement, doctype: string | null): boolean {
  if (doctype && /JATS|NLM|journal ?publishing|archiving and interchange/i.test(doctype)) return true;
  return (
    root.name === "article" &&
    root.children.some(
      (child) => child.type === "element" && (child.name === "front" || child.name === "body"),
    )
  );
}

const HEADING_NAMES = new Set(["title", "head", "heading", "header", "h", "caption", "subtitle"]);

/**
 * Any other XML: the text of its elements in document order. An element with text of its own is a paragraph
 * (its whole text, inline markup flattened); `title`-like elements are headings, one level per nesting of
 * their parent; elements holding only elements are walked into.
 */
function readGenericXml(root: MarkupElement, sink: ItemSink): void {
  const visit = (el: MarkupElement, depth: number) => {
    const ownText = el.children.some((child) => child.type === "text" && child.value.trim() !== "");
    if (ownText) {
      const text = rawText(el).replace(/\s+/g, " ").trim();
      if (text === "") return;
      const prov = [
        {
          page: 1,
          bbox: null,
          charSpan: el.start >= 0 && el.end >= el.start ? ([el.start, el.end] as [number, number]) : null,
        },
      ];
      const local = el.name.replace(/^.*:/, "").toLowerCase();
      if (HEADING_NAMES.has(local)) {
        sink.add<HeadingItem>({
          label: "section_header",
          level: Math.min(6, Math.max(1, depth)),
          text,
          furniture: false,
          prov,
        });
      } else sink.add<TextItem>({ label: "text", text, furniture: false, prov });
      return;
    }
    for (const child of el.children) if (child.type === "element") visit(child, depth + 1);
  };
  visit(root, 0);
}

/**
 * XML: JATS and NLM journal articles (told by their doctype or by an `article` root with `front`/`body`) are
 * read as articles (title, authors, affiliations, abstract, sections with heading levels, paragraphs, lists,
 * tables, figure captions, references); any other XML as its elements' text in document order.
 */
export const xmlBackend: FormatBackend = {
  name: "xml",
  mimeTypes: ["application/xml", "text/xml", "application/jats+xml"],
  countPages: () => 1,
  load(input): DocumentModel {
    const { text, warnings } = decodeMarkup(input, "XML");
    const { root, doctype, warnings: parseWarnings } = parseXml(text);
    const sink = new ItemSink();
    let backend = "xml";
    if (isJats(root, doctype)) {
      backend = "jats";
      const { title, body } = jatsToMarkup(root);
      if (title) {
        sink.add<TextItem>({
          label: "title",
          text: title,
          furniture: false,
          prov: [{ page: 1, bbox: null, charSpan: null }],
        });
      }
      new BlockReader(sink, { firstH1IsTitle: false }).read(body);
    } else readGenericXml(root, sink);
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "application/xml",
      backend,
      pages: [{ pageNumber: 1, size: null }],
      items: sink.items,
      warnings: [...warnings, ...parseWarnings],
    };
  },
};
