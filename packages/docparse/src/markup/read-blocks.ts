import type {
  CodeItem,
  FigureItem,
  HeadingItem,
  ItemSink,
  ListItem,
  Provenance,
  TableCell,
  TableItem,
  TextItem,
} from "../model.ts";
import { escapeMarkdownText } from "../views/markdown.ts";
import { type MarkupElement, type MarkupNode, rawText } from "./tree.ts";

/**
 * Reads an HTML-shaped element tree (see tree.ts) into document items: headings, paragraphs, lists (nested,
 * ordered, description lists), tables with spans and header cells, figures with captions, code blocks and block
 * quotes. Inline formatting is kept as markdown (bold, italic, strikethrough, code, links). The HTML backend
 * walks the parsed page; the XML backend maps JATS articles onto the same element names first.
 */

/** Elements that start a block of their own: text before and after them is a separate paragraph. */
const BLOCK = new Set([
  "address",
  "article",
  "aside",
  "blockquote",
  "body",
  "caption",
  "center",
  "dd",
  "details",
  "dialog",
  "div",
  "dl",
  "dt",
  "fieldset",
  "figcaption",
  "figure",
  "footer",
  "form",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "header",
  "hgroup",
  "hr",
  "html",
  "legend",
  "li",
  "main",
  "menu",
  "nav",
  "ol",
  "p",
  "pre",
  "section",
  "summary",
  "table",
  "ul",
  "search",
  "x-formula",
]);

/** Blocks that are structure of their own inside a list item (the rest of a list item's blocks join its text). */
const STRUCTURAL = new Set([
  "ul",
  "ol",
  "menu",
  "dl",
  "table",
  "pre",
  "blockquote",
  "figure",
  "img",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "hr",
  "x-formula",
]);

/** Inline elements rendered as markdown formatting around their content. */
const FORMAT: Record<string, string> = {
  b: "**",
  strong: "**",
  i: "*",
  em: "*",
  cite: "*",
  dfn: "*",
  var: "*",
  s: "~~",
  strike: "~~",
  del: "~~",
};

/** Inline elements whose content is code. */
const CODE = new Set(["code", "kbd", "samp", "tt"]);

/** Widest span accepted for a table cell: a larger value is an error of the page (or an attack on memory). */
const MAX_COLSPAN = 1000;
const MAX_TABLE_CELLS = 1_000_000;

/** Escapes the inline characters of plain text that markdown would read as formatting. */
export function escapeInline(text: string): string {
  return text.replace(/[\\`*_[\]]/g, "\\$&").replace(/<(?=[A-Za-z/!?])/g, "\\<");
}

/** Text as the reader sees it: whitespace runs are one space. */
function collapse(text: string): string {
  return text.replace(/[ \t\n\r\f\u200b]+/g, " ");
}

/** A paragraph being gathered: its markdown and plain text, and where its text came from. */
class Inline {
  md = "";
  text = "";
  start = -1;
  end = -1;

  /** Appends a piece; a space at a piece's start is dropped after a space or a line break, or at the start. */
  add(md: string, text: string, start = -1, end = -1): void {
    if (text === "" && md === "") return;
    const afterSpace = this.text === "" || /[ \n]$/.test(this.text);
    if (afterSpace && md.startsWith(" ")) {
      md = md.trimStart();
      text = text.trimStart();
      if (md === "" && text === "") return;
    }
    this.md += md;
    this.text += text;
    if (start >= 0 && (this.start < 0 || start < this.start)) this.start = start;
    if (end > this.end) this.end = end;
  }

  /** A separator between two blocks joined into one paragraph. */
  space(): void {
    if (this.text !== "" && !/[ \n]$/.test(this.text)) {
      this.md += " ";
      this.text += " ";
    }
  }

  addFrom(
    other: Inline,
    wrapMd: (core: string) => string,
    wrapText: (core: string) => string = (t) => t,
  ): void {
    const core = other.md.trim();
    if (core === "") {
      if (other.md !== "") this.add(" ", " ");
      return;
    }
    const lead = /^\s/.test(other.md) ? " " : "";
    const trail = /\s$/.test(other.md) ? " " : "";
    this.add(lead + wrapMd(core) + trail, lead + wrapText(other.text.trim()) + trail, other.start, other.end);
  }

  get empty(): boolean {
    return this.text.trim() === "";
  }
}

interface ListFrame {
  depth: number;
  marker: string;
  ordered: boolean;
  /** The item's own text has been written (further text is a paragraph of its own). */
  written: boolean;
}

interface Context {
  listDepth: number;
  quoteDepth: number;
  /** The list item whose text is being gathered, when inside one. */
  item: ListFrame | null;
}

export interface ReadBlocksOptions {
  /** The first level-1 heading is the document's title (HTML); false when the title comes from elsewhere. */
  firstH1IsTitle: boolean;
  /** Added to every character offset: where the markup starts in the document's text (HTML inside markdown). */
  offset?: number;
}

/** Hidden by the page itself: `hidden`, `aria-hidden`, or a `display:none` / `visibility:hidden` style. */
export function isHidden(el: MarkupElement): boolean {
  const attrs = el.attrs;
  if ("hidden" in attrs || attrs["aria-hidden"] === "true") return true;
  const style = attrs.style;
  return style !== undefined && /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

export class BlockReader {
  readonly #sink: ItemSink;
  readonly #options: ReadBlocksOptions;
  #sawTitle = false;
  #para = new Inline();
  #ctx: Context = { listDepth: 0, quoteDepth: 0, item: null };
  #cells = 0;

  constructor(sink: ItemSink, options: ReadBlocksOptions) {
    this.#sink = sink;
    this.#options = options;
  }

  /** Reads the children of `root` and writes what they hold. */
  read(root: MarkupElement): void {
    this.#children(root);
    this.#flush();
  }

  #prov(start: number, end: number): Provenance[] {
    const offset = this.#options.offset ?? 0;
    return [
      { page: 1, bbox: null, charSpan: start >= 0 && end >= start ? [start + offset, end + offset] : null },
    ];
  }

  /** Writes the gathered paragraph: a list item's text, or a paragraph. */
  #flush(): void {
    const para = this.#para;
    this.#para = new Inline();
    const frame = this.#ctx.item;
    if (para.empty) return;
    const md = escapeMarkdownText(para.md.trim()).replace(/ *\n */g, "  \n");
    const text = para.text.trim().replace(/ *\n */g, "\n");
    const prov = this.#prov(para.start, para.end);
    if (frame && !frame.written) {
      frame.written = true;
      this.#sink.add<ListItem>({
        label: "list_item",
        text,
        markdown: md.replace(/ {2}\n/g, " "),
        ordered: frame.ordered,
        marker: frame.marker,
        depth: frame.depth,
        furniture: false,
        prov,
      });
      return;
    }
    const item: Omit<TextItem, "id" | "readingOrder"> = {
      label: "text",
      text,
      markdown: md,
      furniture: false,
      prov,
    };
    if (this.#ctx.quoteDepth > 0) item.quoteDepth = this.#ctx.quoteDepth;
    this.#sink.add<TextItem>(item);
  }

  #children(el: MarkupElement): void {
    for (const child of el.children) this.#node(child);
  }

  #node(node: MarkupNode): void {
    if (node.type === "text") {
      const value = collapse(node.value);
      this.#para.add(escapeInline(value), value, node.start, node.end);
      return;
    }
    if (isHidden(node)) return;
    const name = node.name;
    if (name === "x-math") {
      addMath(node, this.#para);
      return;
    }
    if (name in FORMAT || CODE.has(name) || name === "a") {
      if (hasStructure(node)) this.#children(node);
      else this.#inline(node, this.#para);
      return;
    }
    if (name === "br") {
      this.#para.add("\n", "\n");
      return;
    }
    if (name === "img") {
      this.#image(node, null);
      return;
    }
    if (!BLOCK.has(name)) {
      // Transparent inline containers (span, font, label, sub, sup, u...): their content flows on.
      this.#children(node);
      return;
    }
    // Inside a list item, plain blocks (p, div...) join the item's text; structure stands on its own.
    if (
      this.#ctx.item &&
      !this.#ctx.item.written &&
      !STRUCTURAL.has(name) &&
      name !== "li" &&
      name !== "dt" &&
      name !== "dd"
    ) {
      this.#para.space();
      this.#children(node);
      this.#para.space();
      return;
    }
    this.#flush();
    this.#block(node);
    this.#flush();
  }

  #block(el: MarkupElement): void {
    switch (el.name) {
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        this.#heading(el, Number(el.name[1]));
        break;
      case "ul":
      case "ol":
      case "menu":
        this.#list(el);
        break;
      case "dl":
        this.#definitions(el);
        break;
      case "li":
        // A list item outside a list: read as one of an unordered list.
        this.#listItem(el, {
          depth: this.#ctx.listDepth,
          marker: "-",
          ordered: false,
          written: false,
        });
        break;
      case "pre":
        this.#code(el);
        break;
      case "table":
        this.#table(el);
        break;
      case "figure":
        this.#figure(el);
        break;
      case "blockquote":
        this.#with({ quoteDepth: this.#ctx.quoteDepth + 1, item: null }, () => this.#children(el));
        break;
      case "hr":
        break;
      case "x-formula":
        if (el.attrs.tex) {
          this.#sink.add<TextItem>({
            label: "formula",
            text: el.attrs.tex,
            furniture: false,
            prov: this.#prov(el.start, el.end),
          });
        }
        break;
      default:
        this.#children(el);
    }
  }

  #with(change: Partial<Context>, body: () => void): void {
    const saved = this.#ctx;
    this.#ctx = { ...saved, ...change };
    try {
      body();
      this.#flush();
    } finally {
      this.#ctx = saved;
    }
  }

  /** Inline content of `el` with its formatting, appended to `into`. */
  #inline(el: MarkupElement, into: Inline): void {
    const name = el.name;
    if (CODE.has(name)) {
      const code = collapse(rawText(el));
      const core = code.trim();
      if (core === "") return;
      let ticks = "`";
      while (core.includes(ticks)) ticks += "`";
      const pad = core.startsWith("`") || core.endsWith("`") ? " " : "";
      const lead = code.startsWith(" ") ? " " : "";
      const trail = code.endsWith(" ") ? " " : "";
      into.add(
        `${lead}${ticks}${pad}${core}${pad}${ticks}${trail}`,
        `${lead}${core}${trail}`,
        el.start,
        el.end,
      );
      return;
    }
    const inner = new Inline();
    for (const child of el.children) {
      if (child.type === "text") {
        const value = collapse(child.value);
        inner.add(escapeInline(value), value, child.start, child.end);
      } else if (isHidden(child)) {
      } else if (child.name === "br") inner.add("\n", "\n");
      else if (child.name === "x-math") addMath(child, inner);
      else if (child.name === "img") {
        const alt = collapse(child.attrs.alt ?? "").trim();
        if (alt) inner.add(escapeInline(alt), alt);
      } else if (BLOCK.has(child.name)) {
        inner.space();
        this.#inline(child, inner);
        inner.space();
      } else this.#inline(child, inner);
    }
    const mark = FORMAT[name];
    if (mark) into.addFrom(inner, (core) => `${mark}${core}${mark}`);
    else if (name === "a") {
      const href = linkTarget(el.attrs.href);
      into.addFrom(inner, (core) => (href === null ? core : `[${core}](${href})`));
    } else into.addFrom(inner, (core) => core);
  }

  #heading(el: MarkupElement, level: number): void {
    const inline = new Inline();
    this.#inline(el, inline);
    if (!inline.empty) {
      const md = escapeMarkdownText(inline.md.trim().replace(/\s*\n\s*/g, " "));
      const text = inline.text.trim().replace(/\s*\n\s*/g, " ");
      const prov = this.#prov(el.start, el.end);
      if (level === 1 && this.#options.firstH1IsTitle && !this.#sawTitle) {
        this.#sawTitle = true;
        this.#sink.add<TextItem>({ label: "title", text, markdown: md, furniture: false, prov });
      } else {
        this.#sink.add<HeadingItem>({
          label: "section_header",
          level,
          text,
          markdown: md,
          furniture: false,
          prov,
        });
      }
    }
    // Images inside a heading are figures after it.
    for (const img of descendants(el, "img")) this.#image(img, null);
  }

  #list(el: MarkupElement): void {
    const ordered = el.name === "ol";
    let next = ordered ? Number.parseInt(el.attrs.start ?? "1", 10) : 1;
    if (!Number.isFinite(next)) next = 1;
    const depth = this.#ctx.item ? this.#ctx.item.depth + 1 : this.#ctx.listDepth;
    for (const child of el.children) {
      if (child.type === "element" && child.name === "li" && !isHidden(child)) {
        const value = Number.parseInt(child.attrs.value ?? "", 10);
        if (ordered && Number.isFinite(value)) next = value;
        this.#listItem(child, { depth, marker: ordered ? `${next}.` : "-", ordered, written: false });
        next++;
      } else if (child.type === "element") {
        // Stray content between items (a nested list written without its li, a div...).
        this.#with({ listDepth: depth, item: null }, () => this.#node(child));
      }
    }
  }

  #listItem(el: MarkupElement, frame: ListFrame): void {
    this.#with({ item: frame, listDepth: frame.depth + 1 }, () => this.#children(el));
  }

  /** A description list: each term a list item in bold, its descriptions one level deeper. */
  #definitions(el: MarkupElement): void {
    const depth = this.#ctx.item ? this.#ctx.item.depth + 1 : this.#ctx.listDepth;
    const entries = el.children.flatMap((child) =>
      child.type === "element" && child.name === "div" ? child.children : [child],
    );
    for (const child of entries) {
      if (child.type !== "element" || isHidden(child)) continue;
      if (child.name === "dt") {
        const inline = new Inline();
        this.#inline(child, inline);
        if (inline.empty) continue;
        const core = inline.md.trim();
        const bold = /^\*\*[^*]*\*\*$/.test(core) ? core : `**${core}**`;
        this.#sink.add<ListItem>({
          label: "list_item",
          text: inline.text.trim(),
          markdown: bold,
          ordered: false,
          marker: "-",
          depth,
          furniture: false,
          prov: this.#prov(child.start, child.end),
        });
      } else if (child.name === "dd") {
        this.#listItem(child, { depth: depth + 1, marker: "-", ordered: false, written: false });
      }
    }
  }

  #code(el: MarkupElement): void {
    let text = rawText(el).replace(/\r\n?/g, "\n");
    text = text.replace(/^\n/, "").replace(/\s+$/, "");
    // Indentation shared by every line is the page's, not the code's.
    const lines = text.split("\n");
    const indents = lines
      .filter((line) => line.trim() !== "")
      .map((line) => /^[ \t]*/.exec(line)?.[0].length ?? 0);
    const common = indents.length > 0 ? Math.min(...indents) : 0;
    if (common > 0) text = lines.map((line) => line.slice(common)).join("\n");
    if (text.trim() === "") return;
    const codeEl = el.children.find((c): c is MarkupElement => c.type === "element" && c.name === "code");
    const classes = `${el.attrs.class ?? ""} ${codeEl?.attrs.class ?? ""}`;
    const language = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(classes)?.[1] ?? null;
    this.#sink.add<CodeItem>({
      label: "code",
      text,
      language,
      furniture: false,
      prov: this.#prov(el.start, el.end),
    });
  }

  #caption(text: string, label: "figure_caption" | "table_caption", el: MarkupElement | null): void {
    if (text === "") return;
    this.#sink.add<TextItem>({
      label,
      text,
      furniture: false,
      prov: this.#prov(el?.start ?? -1, el?.end ?? -1),
    });
  }

  #image(img: MarkupElement, caption: string | null): void {
    const width = Number.parseInt(img.attrs.width ?? "", 10);
    const height = Number.parseInt(img.attrs.height ?? "", 10);
    if (width <= 1 || height <= 1) return; // tracking pixels and spacers
    this.#flush();
    const text = caption ?? (collapse(img.attrs.alt ?? "").trim() || null);
    if (text) this.#caption(text, "figure_caption", img);
    this.#sink.add<FigureItem>({
      label: "figure",
      caption: text,
      source: null,
      furniture: false,
      prov: this.#prov(img.start, img.end),
    });
  }

  #figure(el: MarkupElement): void {
    const captionEl = el.children.find(
      (c): c is MarkupElement => c.type === "element" && (c.name === "figcaption" || c.name === "caption"),
    );
    const caption = captionEl ? collapse(rawText(captionEl)).trim() : "";
    const images = descendants(el, "img");
    const rest = el.children.filter((child) => child !== captionEl);
    if (images.length === 0) {
      // A figure without an image (a quote, a code listing, a table): its content, then its caption.
      for (const child of rest) this.#node(child);
      this.#flush();
      this.#caption(caption, "figure_caption", captionEl ?? null);
      return;
    }
    images.forEach((img, index) => {
      this.#image(img, index === 0 && caption ? caption : null);
    });
    // Text of the figure besides its images and caption.
    for (const child of rest) {
      if (child.type === "element" && (child.name === "img" || hasImage(child))) continue;
      this.#node(child);
    }
  }

  #table(el: MarkupElement): void {
    const rows: MarkupElement[] = [];
    const headRows = new Set<MarkupElement>();
    let captionEl: MarkupElement | null = null;
    const collect = (parent: MarkupElement, inHead: boolean) => {
      for (const child of parent.children) {
        if (child.type !== "element" || isHidden(child)) continue;
        if (child.name === "tr") {
          rows.push(child);
          if (inHead) headRows.add(child);
        } else if (child.name === "thead") collect(child, true);
        else if (child.name === "tbody" || child.name === "tfoot") collect(child, false);
        else if (child.name === "caption") captionEl = child;
      }
    };
    collect(el, false);
    const cells: TableCell[] = [];
    const nestedTables: MarkupElement[] = [];
    const taken: boolean[][] = [];
    let numCols = 0;
    const rowsLeft = (row: number) => rows.length - row;
    rows.forEach((tr, row) => {
      const trCells = tr.children.filter(
        (c): c is MarkupElement =>
          c.type === "element" && (c.name === "td" || c.name === "th") && !isHidden(c),
      );
      const allHeader = trCells.length > 0 && trCells.every((c) => c.name === "th");
      let col = 0;
      taken[row] ??= [];
      for (const td of trCells) {
        while (taken[row][col]) col++;
        const colSpan = clampSpan(td.attrs.colspan, MAX_COLSPAN);
        let rowSpan = clampSpan(td.attrs.rowspan, rowsLeft(row));
        if (td.attrs.rowspan?.trim() === "0") rowSpan = rowsLeft(row);
        if (this.#cells + rowSpan * colSpan > MAX_TABLE_CELLS) break;
        this.#cells += rowSpan * colSpan;
        for (let r = row; r < row + rowSpan; r++) {
          taken[r] ??= [];
          for (let c = col; c < col + colSpan; c++) taken[r][c] = true;
        }
        const header = td.name === "th" || headRows.has(tr);
        const content = new Inline();
        this.#inline(td, content);
        const text = content.text.replace(/\s+/g, " ").trim();
        const markdown = content.md.replace(/\s+/g, " ").trim();
        for (const nested of descendants(td, "table")) {
          if (!nestedTables.some((outer) => descendants(outer, "table").includes(nested)))
            nestedTables.push(nested);
        }
        cells.push({
          row,
          col,
          rowSpan,
          colSpan,
          text,
          ...(markdown !== escapeInline(text) ? { markdown } : {}),
          columnHeader: header && (headRows.has(tr) || allHeader),
          rowHeader: header && !headRows.has(tr) && !allHeader,
          bbox: null,
        });
        col += colSpan;
        numCols = Math.max(numCols, col);
      }
    });
    for (const row of taken) numCols = Math.max(numCols, row?.length ?? 0);
    const caption = captionEl ? collapse(rawText(captionEl)).trim() : "";
    if (cells.length === 0) {
      this.#caption(caption, "table_caption", captionEl);
      return;
    }
    this.#caption(caption, "table_caption", captionEl);
    this.#sink.add<TableItem>({
      label: "table",
      numRows: rows.length,
      numCols,
      cells,
      caption: caption || null,
      furniture: false,
      prov: this.#prov(el.start, el.end),
    });
    // Tables inside cells are in their cell's text, and tables of their own after this one.
    for (const nested of nestedTables) this.#table(nested);
  }
}

/**
 * Inline math (the XML backends' `x-math` element, its TeX in `tex`): written as `$…$` in markdown, unescaped,
 * as TeX is.
 */
function addMath(el: MarkupElement, into: Inline): void {
  const tex = el.attrs.tex?.trim();
  if (tex) into.add(`$${tex}$`, tex, el.start, el.end);
}

/** `colspan`/`rowspan` as a number from 1 to `max`. */
function clampSpan(value: string | undefined, max: number): number {
  const n = Number.parseInt(value ?? "1", 10);
  return Math.max(1, Math.min(Number.isFinite(n) && n > 0 ? n : 1, Math.max(1, max)));
}

/** A link target kept in markdown: none for script links; spaces and parentheses put it in angle brackets. */
function linkTarget(href: string | undefined): string | null {
  if (href === undefined) return null;
  const target = href.trim();
  if (target === "" || /^javascript:/i.test(target)) return null;
  return /[\s()<>]/.test(target) ? `<${target.replace(/[<>]/g, encodeURIComponent)}>` : target;
}

/** Whether an inline element holds structure that must be read as blocks (lists, tables, images...). */
function hasStructure(el: MarkupElement): boolean {
  for (const child of el.children) {
    if (child.type !== "element") continue;
    if (STRUCTURAL.has(child.name) || hasStructure(child)) return true;
  }
  return false;
}

function hasImage(el: MarkupElement): boolean {
  return descendants(el, "img").length > 0;
}

function descendants(el: MarkupElement, name: string): MarkupElement[] {
  const found: MarkupElement[] = [];
  const visit = (node: MarkupNode) => {
    if (node.type !== "element" || isHidden(node)) return;
    if (node.name === name) found.push(node);
    for (const child of node.children) visit(child);
  };
  for (const child of el.children) visit(child);
  return found;
}
