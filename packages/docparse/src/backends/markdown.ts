import MarkdownIt from "markdown-it";
import type Token from "markdown-it/lib/token.mjs";
import type { FormatBackend } from "../backend.ts";
import { BlockReader } from "../markup/read-blocks.ts";
import {
  type CodeItem,
  DOCUMENT_MODEL_VERSION,
  type DocumentModel,
  type FigureItem,
  type HeadingItem,
  ItemSink,
  type ListItem,
  type Provenance,
  type TableCell,
  type TableItem,
  type TextItem,
} from "../model.ts";
import { inputText, lineStarts } from "../text-decoding.ts";
import { parseHtml } from "./html.ts";

/** CommonMark with GFM tables and strikethrough; raw HTML is kept as text, links are not guessed. */
const parser = new MarkdownIt("default", { html: true, linkify: false });

/** Plain text of an inline token: formatting dropped, soft breaks as spaces, images as their alt text. */
function plainText(inline: Token): string {
  let out = "";
  for (const child of inline.children ?? []) {
    switch (child.type) {
      case "text":
      case "code_inline":
      case "html_inline":
        out += child.content;
        break;
      case "softbreak":
        out += " ";
        break;
      case "hardbreak":
        out += "\n";
        break;
      case "image":
        out += child.content;
        break;
      default:
        break;
    }
  }
  return out.trim();
}

/** The inline's only content is one image (spaces aside): the paragraph is a figure. */
function soleImage(inline: Token): Token | null {
  const children = (inline.children ?? []).filter((c) => !(c.type === "text" && c.content.trim() === ""));
  return children.length === 1 && children[0].type === "image" ? children[0] : null;
}

interface ListFrame {
  ordered: boolean;
  next: number;
  delimiter: string;
}

/**
 * Markdown: headings, paragraphs, lists (nested), block quotes, fenced and indented code, GFM tables, images
 * alone in a paragraph (figures), raw HTML blocks. One page; every item carries the character span of its
 * source lines. The first level-1 heading is the title.
 */
export const markdownBackend: FormatBackend = {
  name: "markdown",
  mimeTypes: ["text/markdown", "text/x-markdown"],
  countPages: () => 1,
  load(input): DocumentModel {
    const { text, warnings } = inputText(input, "markdown");
    const tokens = parser.parse(text, {});
    const starts = lineStarts(text);
    const sink = new ItemSink();
    const prov = (map: [number, number] | null): Provenance[] => {
      if (!map) return [{ page: 1, bbox: null, charSpan: null }];
      const start = starts[map[0]] ?? text.length;
      let end = starts[map[1]] ?? text.length;
      while (end > start && /\s/.test(text[end - 1])) end--;
      return [{ page: 1, bbox: null, charSpan: [start, end] }];
    };

    const lists: ListFrame[] = [];
    let pendingMarker: string | null = null;
    let pendingMap: [number, number] | null = null;
    let quoteDepth = 0;
    let sawTitle = false;

    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      switch (token.type) {
        case "heading_open": {
          const inline = tokens[i + 1];
          const level = Number(token.tag.slice(1));
          const headingText = plainText(inline);
          const markdown = inline.content.replace(/\s*\n\s*/g, " ").trim();
          if (level === 1 && !sawTitle) {
            sawTitle = true;
            sink.add<TextItem>({
              label: "title",
              text: headingText,
              markdown,
              furniture: false,
              prov: prov(token.map),
            });
          } else {
            sink.add<HeadingItem>({
              label: "section_header",
              level,
              text: headingText,
              markdown,
              furniture: false,
              prov: prov(token.map),
            });
          }
          i += 2;
          break;
        }
        case "paragraph_open": {
          const inline = tokens[i + 1];
          const image = soleImage(inline);
          if (pendingMarker !== null) {
            const frame = lists[lists.length - 1];
            sink.add<ListItem>({
              label: "list_item",
              text: plainText(inline),
              markdown: inline.content.replace(/\s*\n\s*/g, " ").trim(),
              ordered: frame.ordered,
              marker: pendingMarker,
              depth: lists.length - 1,
              furniture: false,
              prov: prov(token.map),
            });
            pendingMarker = null;
          } else if (image) {
            sink.add<FigureItem>({
              label: "figure",
              caption: image.content.trim() || null,
              source: image.attrGet("src"),
              furniture: false,
              prov: prov(token.map),
            });
          } else {
            const item: Omit<TextItem, "id" | "readingOrder"> = {
              label: "text",
              text: plainText(inline),
              markdown: inline.content.trim(),
              furniture: false,
              prov: prov(token.map),
            };
            if (quoteDepth > 0) item.quoteDepth = quoteDepth;
            sink.add<TextItem>(item);
          }
          i += 2;
          break;
        }
        case "bullet_list_open":
        case "ordered_list_open": {
          const ordered = token.type === "ordered_list_open";
          lists.push({ ordered, next: Number(token.attrGet("start") ?? 1), delimiter: token.markup });
          break;
        }
        case "bullet_list_close":
        case "ordered_list_close":
          lists.pop();
          break;
        case "list_item_open": {
          const frame = lists[lists.length - 1];
          pendingMap = token.map;
          if (frame.ordered) {
            pendingMarker = `${token.info || frame.next}${token.markup || "."}`;
            frame.next = Number(token.info || frame.next) + 1;
          } else pendingMarker = "-";
          break;
        }
        case "list_item_close":
          if (pendingMarker !== null) {
            // An empty item, or one that starts with a block other than a paragraph.
            const frame = lists[lists.length - 1];
            sink.add<ListItem>({
              label: "list_item",
              text: "",
              markdown: "",
              ordered: frame.ordered,
              marker: pendingMarker,
              depth: lists.length - 1,
              furniture: false,
              prov: prov(pendingMap),
            });
            pendingMarker = null;
          }
          break;
        case "blockquote_open":
          quoteDepth++;
          break;
        case "blockquote_close":
          quoteDepth--;
          break;
        case "fence":
        case "code_block":
          sink.add<CodeItem>({
            label: "code",
            text: token.content.replace(/\n$/, ""),
            language: token.type === "fence" ? token.info.trim().split(/\s+/)[0] || null : null,
            furniture: false,
            prov: prov(token.map),
          });
          break;
        case "html_block": {
          // Raw HTML is read as HTML (tables, lists, paragraphs); what it does not hold as structure stays text.
          const html = token.content.trim();
          if (html === "" || /^<!--[\s\S]*-->$/.test(html)) break;
          const before = sink.items.length;
          const offset = prov(token.map)[0].charSpan?.[0] ?? 0;
          new BlockReader(sink, { firstH1IsTitle: !sawTitle, offset }).read(parseHtml(token.content));
          if (sink.items.slice(before).some((item) => item.label === "title")) sawTitle = true;
          if (sink.items.length === before) {
            sink.add<TextItem>({
              label: "text",
              text: html,
              markdown: html,
              furniture: false,
              prov: prov(token.map),
            });
          }
          break;
        }
        case "table_open": {
          const end = tokens.findIndex((t, at) => at > i && t.type === "table_close");
          sink.add<TableItem>(readTable(tokens.slice(i, end + 1), prov(token.map)));
          i = end;
          break;
        }
        default:
          break;
      }
    }
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "text/markdown",
      backend: "markdown",
      pages: [{ pageNumber: 1, size: null }],
      items: sink.items,
      warnings,
    };
  },
};

/** The cells of a GFM table: header rows flagged; markdown tables have no spans. */
function readTable(tokens: Token[], provenance: Provenance[]): Omit<TableItem, "id" | "readingOrder"> {
  const cells: TableCell[] = [];
  let row = -1;
  let col = 0;
  let inHead = false;
  let numCols = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === "thead_open") inHead = true;
    else if (token.type === "thead_close") inHead = false;
    else if (token.type === "tr_open") {
      row++;
      col = 0;
    } else if (token.type === "th_open" || token.type === "td_open") {
      const inline = tokens[i + 1];
      cells.push({
        row,
        col,
        rowSpan: 1,
        colSpan: 1,
        text: inline?.type === "inline" ? plainText(inline) : "",
        columnHeader: inHead,
        rowHeader: false,
        bbox: null,
      });
      col++;
      numCols = Math.max(numCols, col);
    }
  }
  return {
    label: "table",
    numRows: row + 1,
    numCols,
    cells,
    caption: null,
    furniture: false,
    prov: provenance,
  };
}
