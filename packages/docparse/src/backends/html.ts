import { type DefaultTreeAdapterMap, parse } from "parse5";
import type { FormatBackend } from "../backend.ts";
import { BlockReader, isHidden } from "../markup/read-blocks.ts";
import { element, findElements, type MarkupElement, type MarkupNode } from "../markup/tree.ts";
import { DOCUMENT_MODEL_VERSION, type DocumentModel, ItemSink } from "../model.ts";
import { decodeMarkup } from "../text-decoding.ts";

type P5Node = DefaultTreeAdapterMap["node"];
type P5Element = DefaultTreeAdapterMap["element"];

/** Elements whose content is never part of the text: scripts, styles, metadata, embedded and form controls. */
const SKIPPED = new Set([
  "head",
  "script",
  "style",
  "noscript",
  "template",
  "title",
  "meta",
  "link",
  "base",
  "iframe",
  "object",
  "embed",
  "svg",
  "canvas",
  "audio",
  "video",
  "select",
  "option",
  "button",
  "input",
  "textarea",
  "map",
  "area",
]);

/** Page furniture clearly marked as such: navigation, footers, asides and their ARIA roles. */
const BOILERPLATE = new Set(["nav", "footer", "aside"]);
const BOILERPLATE_ROLES = new Set(["navigation", "contentinfo", "complementary", "search"]);

/** Deepest element nesting read; deeper content is read as text of the last level (a page built to exhaust the stack). */
const MAX_DEPTH = 400;

function attrsOf(el: P5Element): Record<string, string> {
  const attrs: Record<string, string> = {};
  for (const attr of el.attrs) attrs[attr.name] = attr.value;
  return attrs;
}

/** parse5's tree → the markup tree, leaving out comments, skipped elements, boilerplate and hidden elements. */
function convert(node: P5Node, depth: number): MarkupNode | null {
  if (node.nodeName === "#text") {
    const text = node as DefaultTreeAdapterMap["textNode"];
    const loc = text.sourceCodeLocation;
    return { type: "text", value: text.value, start: loc?.startOffset ?? -1, end: loc?.endOffset ?? -1 };
  }
  if (!("tagName" in node)) return null;
  const el = node as P5Element;
  const name = el.tagName;
  if (SKIPPED.has(name) || BOILERPLATE.has(name)) return null;
  const attrs = attrsOf(el);
  if (attrs.role && BOILERPLATE_ROLES.has(attrs.role)) return null;
  const out = element(
    name,
    [],
    attrs,
    el.sourceCodeLocation?.startOffset ?? -1,
    el.sourceCodeLocation?.endOffset ?? -1,
  );
  if (isHidden(out)) return null;
  for (const child of el.childNodes) {
    const converted =
      depth >= MAX_DEPTH && child.nodeName !== "#text" ? flatText(child) : convert(child, depth + 1);
    if (converted) out.children.push(converted);
  }
  return out;
}

/** The text under a node too deeply nested to be read as structure. */
function flatText(node: P5Node): MarkupNode | null {
  let value = "";
  const stack: P5Node[] = [node];
  while (stack.length > 0) {
    const current = stack.pop() as P5Node;
    if (current.nodeName === "#text") value += (current as DefaultTreeAdapterMap["textNode"]).value;
    else if ("childNodes" in current && !SKIPPED.has(current.nodeName)) {
      for (let i = current.childNodes.length - 1; i >= 0; i--) stack.push(current.childNodes[i]);
    }
  }
  return value === "" ? null : { type: "text", value: ` ${value} `, start: -1, end: -1 };
}

/**
 * The part of the page that is its content: the `main` element (or `role="main"`) when the page has exactly one,
 * else the body.
 */
function mainContent(root: MarkupElement): MarkupElement {
  const mains = findElements(root, (el) => el.name === "main" || el.attrs.role === "main");
  return mains.length === 1 ? mains[0] : root;
}

/** Parses HTML text into the markup tree (the whole document, body content only). */
export function parseHtml(text: string): MarkupElement {
  const document = parse(text, { sourceCodeLocationInfo: true, scriptingEnabled: true });
  const root = element("#root");
  for (const child of document.childNodes) {
    const converted = convert(child, 0);
    if (converted) root.children.push(converted);
  }
  return root;
}

/**
 * HTML and XHTML: parsed as a browser would (parse5, the WHATWG algorithm: missing and misnested tags are
 * repaired the standard way), then read for its content: scripts, styles, forms, hidden elements and marked
 * boilerplate (`nav`, `footer`, `aside`) left out; headings with their levels, paragraphs, lists, tables with
 * spans and header cells, figures with captions, code blocks and quotes. Links stay in the markdown. One page;
 * every item carries the character span of its element in the decoded text.
 */
export const htmlBackend: FormatBackend = {
  name: "html",
  mimeTypes: ["text/html", "application/xhtml+xml"],
  countPages: () => 1,
  load(input): DocumentModel {
    const { text, warnings } = decodeMarkup(input, "HTML");
    const root = parseHtml(text);
    const sink = new ItemSink();
    new BlockReader(sink, { firstH1IsTitle: true }).read(mainContent(root));
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "text/html",
      backend: "html",
      pages: [{ pageNumber: 1, size: null }],
      items: sink.items,
      warnings,
    };
  },
};
