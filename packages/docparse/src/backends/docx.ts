import type { FormatBackend } from "../backend.ts";
import {
  type CodeItem,
  DOCUMENT_MODEL_VERSION,
  DocumentLoadError,
  type DocumentModel,
  type FigureItem,
  type HeadingItem,
  ItemSink,
  type ListItem,
  type TableCell,
  type TableItem,
  type TextItem,
} from "../model.ts";
import { addChart } from "../ooxml/drawing.ts";
import { type InlineRun, renderRuns } from "../ooxml/inline.ts";
import { equationText } from "../ooxml/omml.ts";
import { OoxmlPackage, type Relationship } from "../ooxml/package.ts";
import { child, childrenNamed, descendants, elements, path, type XmlElement } from "../ooxml/xml.ts";

/**
 * DOCX (and DOCM): the main document part read in order into one page (Word files carry no page geometry;
 * page breaks are layout, not structure). Headings from paragraph styles and outline levels (Title is the top
 * level, `Heading N` sits below it at N + 1), lists from numbering.xml, tables with gridSpan/vMerge spans,
 * equations as formulas, images as figures, tracked insertions kept and deletions dropped, footnotes and endnotes
 * after the body, page headers and footers as furniture.
 */
export const DOCX_MIME_TYPES = [
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/vnd.ms-word.document.macroenabled.12",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
  "application/vnd.ms-word.template.macroenabled.12",
] as const;

interface StyleInfo {
  name: string;
  basedOn: string | null;
  outlineLevel: number | null;
  numId: string | null;
  ilvl: number | null;
  bold: boolean | null;
  italic: boolean | null;
}

interface LevelInfo {
  format: string;
  text: string;
  start: number;
}

interface Numbering {
  /** numId → abstract levels (with overrides applied). */
  levels: Map<string, LevelInfo[]>;
  /**
   * numId → whose counters it uses: lists of the same abstract numbering continue each other's count, as Word
   * numbers them, unless a list restarts with a start override of its own.
   */
  counterKey: Map<string, string>;
}

type Block = { kind: "paragraph"; node: XmlElement } | { kind: "table"; node: XmlElement };

const PAGE = 1;

function on(node: XmlElement | undefined): boolean | null {
  if (!node) return null;
  const value = node.attrs.val;
  return value === undefined || !(value === "0" || value === "false" || value === "off" || value === "none");
}

function readStyles(pkg: OoxmlPackage, part: string | undefined): Map<string, StyleInfo> {
  const styles = new Map<string, StyleInfo>();
  const root = part ? pkg.xml(part) : undefined;
  for (const style of childrenNamed(root, "style")) {
    const id = style.attrs.styleId;
    if (!id) continue;
    const pPr = child(style, "pPr");
    const numPr = child(pPr, "numPr");
    const outline = child(pPr, "outlineLvl")?.attrs.val;
    const rPr = child(style, "rPr");
    styles.set(id, {
      name: (child(style, "name")?.attrs.val ?? id).toLowerCase(),
      basedOn: child(style, "basedOn")?.attrs.val ?? null,
      outlineLevel: outline === undefined ? null : Number(outline),
      numId: child(numPr, "numId")?.attrs.val ?? null,
      ilvl: child(numPr, "ilvl") ? Number(child(numPr, "ilvl")?.attrs.val) : null,
      bold: on(child(rPr, "b")),
      italic: on(child(rPr, "i")),
    });
  }
  return styles;
}

function readNumbering(pkg: OoxmlPackage, part: string | undefined): Numbering {
  const levels = new Map<string, LevelInfo[]>();
  const root = part ? pkg.xml(part) : undefined;
  const abstracts = new Map<string, LevelInfo[]>();
  for (const abstract of childrenNamed(root, "abstractNum")) {
    const list: LevelInfo[] = [];
    for (const level of childrenNamed(abstract, "lvl")) {
      list[Number(level.attrs.ilvl ?? 0)] = {
        format: child(level, "numFmt")?.attrs.val ?? "decimal",
        text: child(level, "lvlText")?.attrs.val ?? "",
        start: Number(child(level, "start")?.attrs.val ?? 1),
      };
    }
    abstracts.set(abstract.attrs.abstractNumId ?? "", list);
  }
  const counterKey = new Map<string, string>();
  for (const num of childrenNamed(root, "num")) {
    const numId = num.attrs.numId ?? "";
    const abstractId = child(num, "abstractNumId")?.attrs.val ?? "";
    const base = abstracts.get(abstractId) ?? [];
    const list = base.map((level) => ({ ...level }));
    let restarts = false;
    for (const override of childrenNamed(num, "lvlOverride")) {
      const index = Number(override.attrs.ilvl ?? 0);
      const start = child(override, "startOverride")?.attrs.val;
      if (start !== undefined && list[index]) {
        list[index].start = Number(start);
        restarts = true;
      }
    }
    levels.set(numId, list);
    counterKey.set(numId, restarts ? `num:${numId}` : `abstract:${abstractId}`);
  }
  return { levels, counterKey };
}

/** A number in a list format: decimal, letters, roman. */
function formatNumber(value: number, format: string): string {
  switch (format) {
    case "lowerLetter":
    case "upperLetter": {
      let n = value;
      let out = "";
      while (n > 0) {
        out = String.fromCharCode(97 + ((n - 1) % 26)) + out;
        n = Math.floor((n - 1) / 26);
      }
      return format === "upperLetter" ? out.toUpperCase() : out;
    }
    case "lowerRoman":
    case "upperRoman": {
      const numerals: [number, string][] = [
        [1000, "m"],
        [900, "cm"],
        [500, "d"],
        [400, "cd"],
        [100, "c"],
        [90, "xc"],
        [50, "l"],
        [40, "xl"],
        [10, "x"],
        [9, "ix"],
        [5, "v"],
        [4, "iv"],
        [1, "i"],
      ];
      let n = value;
      let out = "";
      for (const [size, numeral] of numerals) {
        while (n >= size) {
          out += numeral;
          n -= size;
        }
      }
      return format === "upperRoman" ? out.toUpperCase() : out;
    }
    default:
      return String(value);
  }
}

/** Reads one DOCX package into the model. */
class DocxReader {
  readonly pkg: OoxmlPackage;
  readonly main: string;
  readonly styles: Map<string, StyleInfo>;
  readonly numbering: Numbering;
  readonly removeStruck: boolean;
  readonly sink = new ItemSink();
  readonly warnings: string[] = [];
  /** Footnote and endnote ids in the order they are first referenced. */
  readonly notes: { kind: "footnote" | "endnote"; id: string; number: number }[] = [];
  /** Counters per list (numId) and level. */
  readonly counters = new Map<string, number[]>();
  struck = false;
  /** Text boxes met inside the current paragraph, read after it. */
  pendingBoxes: XmlElement[] = [];
  pendingFigures = 0;
  /** Relationship ids of charts met inside the current paragraph. */
  pendingCharts: string[] = [];

  /** Forgets the graphics met in runs read only for their text (headers, cells, notes). */
  resetPending(): void {
    this.pendingBoxes = [];
    this.pendingFigures = 0;
    this.pendingCharts = [];
  }

  constructor(pkg: OoxmlPackage, main: string, removeStruck: boolean) {
    this.pkg = pkg;
    this.main = main;
    this.removeStruck = removeStruck;
    const rels = [...pkg.rels(main).values()];
    const target = (type: string) => rels.find((rel) => rel.type === type && !rel.external)?.target;
    this.styles = readStyles(pkg, target("styles"));
    this.numbering = readNumbering(pkg, target("numbering"));
  }

  /** A style property looked up through `basedOn`. */
  styleValue<K extends keyof StyleInfo>(styleId: string | undefined, key: K): StyleInfo[K] | null {
    let id = styleId;
    for (let depth = 0; id && depth < 20; depth++) {
      const style = this.styles.get(id);
      if (!style) return null;
      if (style[key] !== null) return style[key];
      id = style.basedOn ?? undefined;
    }
    return null;
  }

  read(): DocumentModel {
    const root = this.pkg.requireXml(this.main);
    const body = child(root, "body");
    if (!body) this.warnings.push(`${this.main} has no body`);
    const sections = body ? descendants(body, "sectPr") : [];
    this.furniture(sections, "headerReference", "page_header");
    if (body) this.blocks(body, this.main);
    this.notesAfterBody();
    this.furniture(sections, "footerReference", "page_footer");
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "",
      backend: "docx",
      pages: [{ pageNumber: PAGE, size: null }],
      items: this.sink.items,
      warnings: this.warnings,
      ...(this.struck ? { struckPages: [PAGE] } : {}),
    };
  }

  /** Page headers or footers of every section, each part once, as furniture. */
  furniture(sections: XmlElement[], reference: string, label: "page_header" | "page_footer"): void {
    const rels = this.pkg.rels(this.main);
    const seen = new Set<string>();
    for (const section of sections) {
      for (const ref of childrenNamed(section, reference)) {
        const rel = rels.get(ref.attrs.id ?? "");
        if (!rel || rel.external || seen.has(rel.target)) continue;
        seen.add(rel.target);
        const part = this.pkg.xml(rel.target);
        if (!part) continue;
        for (const paragraph of descendants(part, "p")) {
          const { text } = renderRuns(this.runs(paragraph, rel.target));
          if (text) this.sink.add<TextItem>({ label, text, furniture: true, prov: [prov()] });
        }
        this.resetPending();
      }
    }
  }

  /** The blocks (paragraphs, tables) of a container, in order, through content controls and custom XML. */
  blockNodes(container: XmlElement, out: Block[] = []): Block[] {
    for (const node of elements(container)) {
      if (node.name === "p") out.push({ kind: "paragraph", node });
      else if (node.name === "tbl") out.push({ kind: "table", node });
      else if (node.name === "sdt") this.blockNodes(child(node, "sdtContent") ?? node, out);
      else if (node.name === "customXml" || node.name === "ins" || node.name === "moveTo")
        this.blockNodes(node, out);
      else if (node.name === "AlternateContent") {
        const choice = child(node, "Choice") ?? child(node, "Fallback");
        if (choice) this.blockNodes(choice, out);
      }
    }
    return out;
  }

  blocks(container: XmlElement, part: string): void {
    const blocks = this.blockNodes(container);
    let code: string[] = [];
    const flushCode = () => {
      if (code.length === 0) return;
      this.sink.add<CodeItem>({
        label: "code",
        text: code.join("\n"),
        language: null,
        furniture: false,
        prov: [prov()],
      });
      code = [];
    };
    for (const block of blocks) {
      if (block.kind === "table") {
        flushCode();
        this.table(block.node, part);
        continue;
      }
      const styleId = path(block.node, "pPr", "pStyle")?.attrs.val;
      const styleName = styleId ? (this.styles.get(styleId)?.name ?? styleId.toLowerCase()) : "";
      if (/\b(code|source|preformatted|macro text)\b/.test(styleName)) {
        const { text } = renderRuns(this.runs(block.node, part, true));
        code.push(text);
        continue;
      }
      flushCode();
      this.paragraph(block.node, part, styleId, styleName);
    }
    flushCode();
  }

  /** Runs of a paragraph (or any inline container), formatting resolved, deletions dropped. */
  runs(container: XmlElement, part: string, keepSpaces = false, link: string | null = null): InlineRun[] {
    const out: InlineRun[] = [];
    for (const node of elements(container)) {
      switch (node.name) {
        case "r":
          this.run(node, part, link, out, keepSpaces);
          break;
        case "hyperlink": {
          const rel = node.attrs.id ? this.pkg.rels(part).get(node.attrs.id) : undefined;
          const target = rel ? rel.target : null;
          out.push(...this.runs(node, part, keepSpaces, target ?? link));
          break;
        }
        case "ins":
        case "moveTo":
        case "smartTag":
        case "customXml":
        case "fldSimple":
        case "bdo":
        case "dir":
          out.push(...this.runs(node, part, keepSpaces, link));
          break;
        case "sdt":
          out.push(...this.runs(child(node, "sdtContent") ?? node, part, keepSpaces, link));
          break;
        case "oMath":
        case "oMathPara": {
          const latex = equationText(node);
          if (latex)
            out.push({
              text: `$${latex}$`,
              plain: latex,
              raw: true,
              bold: false,
              italic: false,
              strike: false,
              link: null,
            });
          break;
        }
        case "AlternateContent": {
          const choice = child(node, "Choice") ?? child(node, "Fallback");
          if (choice) out.push(...this.runs(choice, part, keepSpaces, link));
          break;
        }
        default:
          // del, moveFrom (tracked deletions), pPr, bookmarks, proofing marks, comment ranges: no text.
          break;
      }
    }
    return out;
  }

  run(run: XmlElement, _part: string, link: string | null, out: InlineRun[], keepSpaces: boolean): void {
    const rPr = child(run, "rPr");
    const charStyle = child(rPr, "rStyle")?.attrs.val;
    const bold = on(child(rPr, "b")) ?? this.styleValue(charStyle, "bold") ?? false;
    const italic = on(child(rPr, "i")) ?? this.styleValue(charStyle, "italic") ?? false;
    const strike = (on(child(rPr, "strike")) ?? false) || (on(child(rPr, "dstrike")) ?? false);
    let text = "";
    for (const node of elements(run)) {
      switch (node.name) {
        case "t":
          text += node.children.join("");
          break;
        case "tab":
        case "ptab":
          text += keepSpaces ? "\t" : " ";
          break;
        case "br":
        case "cr":
          text += node.attrs.type === "page" ? " " : "\n";
          break;
        case "noBreakHyphen":
          text += "-";
          break;
        case "footnoteReference":
        case "endnoteReference": {
          if (text) {
            out.push({ text, bold, italic, strike, link });
            text = "";
          }
          const kind = node.name === "footnoteReference" ? "footnote" : "endnote";
          const id = node.attrs.id ?? "";
          let note = this.notes.find((entry) => entry.kind === kind && entry.id === id);
          if (!note) {
            note = { kind, id, number: this.notes.length + 1 };
            this.notes.push(note);
          }
          out.push({
            text: `[^${note.number}]`,
            raw: true,
            bold: false,
            italic: false,
            strike: false,
            link: null,
          });
          break;
        }
        case "drawing":
        case "pict":
        case "object":
          this.graphic(node);
          break;
        case "AlternateContent": {
          const choice = child(node, "Choice") ?? child(node, "Fallback");
          if (choice)
            for (const inner of elements(choice))
              if (inner.name === "drawing" || inner.name === "pict") this.graphic(inner);
          break;
        }
        default:
          break;
      }
    }
    if (!text) return;
    if (strike && this.removeStruck) {
      if (text.trim()) this.struck = true;
      return;
    }
    out.push({ text, bold, italic, strike, link });
  }

  /** A drawing, VML picture or embedded object: a figure, and any text box it holds read after the paragraph. */
  graphic(node: XmlElement): void {
    const boxes = descendants(node, "txbxContent");
    if (boxes.length > 0) {
      this.pendingBoxes.push(...boxes);
      return;
    }
    const charts = descendants(node, "chart");
    if (charts.length > 0) {
      for (const chart of charts) this.pendingCharts.push(chart.attrs.id ?? "");
      return;
    }
    const pictures = descendants(node, "blip").length + descendants(node, "imagedata").length;
    if (pictures > 0 || node.name === "object") this.pendingFigures += 1;
  }

  paragraph(node: XmlElement, part: string, styleId: string | undefined, styleName: string): void {
    const pPr = child(node, "pPr");
    this.resetPending();
    // A paragraph that is only a display equation is a formula item.
    const content = elements(node).filter(
      (item) => item.name !== "pPr" && item.name !== "bookmarkStart" && item.name !== "bookmarkEnd",
    );
    if (content.length > 0 && content.every((item) => item.name === "oMathPara" || item.name === "oMath")) {
      const text = content.map(equationText).filter(Boolean).join(" ");
      if (text) this.sink.add<TextItem>({ label: "formula", text, furniture: false, prov: [prov()] });
      return;
    }
    const runs = this.runs(node, part);
    const { text, markdown } = renderRuns(runs);
    const boxes = this.pendingBoxes;
    const figures = this.pendingFigures;
    const charts = this.pendingCharts;
    this.resetPending();
    if (text) this.textBlock(text, markdown, pPr, styleId, styleName);
    for (let i = 0; i < figures; i++) {
      this.sink.add<FigureItem>({
        label: "figure",
        caption: null,
        source: null,
        furniture: false,
        prov: [prov()],
      });
    }
    for (const id of charts) {
      const rel = this.pkg.rels(part).get(id);
      const added = rel && !rel.external && addChart(this.sink, this.pkg, rel.target, prov());
      if (!added)
        this.sink.add<FigureItem>({
          label: "figure",
          caption: null,
          source: null,
          furniture: false,
          prov: [prov()],
        });
    }
    for (const box of boxes) this.blocks(box, part);
  }

  textBlock(
    text: string,
    markdown: string,
    pPr: XmlElement | undefined,
    styleId: string | undefined,
    styleName: string,
  ): void {
    const numPr = child(pPr, "numPr");
    const numId = child(numPr, "numId")?.attrs.val ?? this.styleValue(styleId, "numId") ?? null;
    const ilvl = Number(child(numPr, "ilvl")?.attrs.val ?? this.styleValue(styleId, "ilvl") ?? 0);
    const outline = child(pPr, "outlineLvl")?.attrs.val;
    const outlineLevel = outline !== undefined ? Number(outline) : this.styleValue(styleId, "outlineLevel");
    const headingMatch = /^heading\s*(\d)$/.exec(styleName);
    const plainMarkdown = markdown === text ? undefined : markdown;
    if (styleName === "title") {
      this.sink.add<TextItem>({
        label: "title",
        text,
        markdown: plainMarkdown,
        furniture: false,
        prov: [prov()],
      });
      return;
    }
    const headingLevel = headingMatch
      ? Number(headingMatch[1])
      : outlineLevel !== null && outlineLevel < 9
        ? outlineLevel + 1
        : null;
    const numbered = numId !== null && numId !== "0" ? this.nextNumber(numId, ilvl) : null;
    if (headingLevel !== null) {
      const prefix = numbered?.ordered ? `${numbered.label} ` : "";
      this.sink.add<HeadingItem>({
        label: "section_header",
        level: headingLevel + 1,
        text: prefix + text,
        markdown: plainMarkdown === undefined ? undefined : prefix + plainMarkdown,
        furniture: false,
        prov: [prov()],
      });
      return;
    }
    if (numbered) {
      this.sink.add<ListItem>({
        label: "list_item",
        text,
        markdown: plainMarkdown,
        ordered: numbered.ordered,
        marker: numbered.ordered ? `${numbered.count}.` : "-",
        depth: ilvl,
        furniture: false,
        prov: [prov()],
      });
      return;
    }
    // A paragraph led by a check box (a checkbox content control or its glyph) is a task-list item.
    const box = /^([\u2610\u2611\u2612])\s*/.exec(text);
    if (box && text.length > box[0].length) {
      const checked = box[1] !== "\u2610";
      const rest = text.slice(box[0].length);
      const restMarkdown = plainMarkdown?.replace(/^[\u2610\u2611\u2612]\s*/, "");
      this.sink.add<ListItem>({
        label: "list_item",
        text: rest,
        markdown: restMarkdown === rest ? undefined : restMarkdown,
        ordered: false,
        marker: checked ? "- [x]" : "- [ ]",
        depth: 0,
        furniture: false,
        prov: [prov()],
      });
      return;
    }
    const label = this.captionLabel(text, styleName);
    this.sink.add<TextItem>({ label, text, markdown: plainMarkdown, furniture: false, prov: [prov()] });
  }

  /** Caption-styled paragraphs, and `Figure N`/`Table N` paragraphs beside a figure or table, are captions. */
  captionLabel(text: string, styleName: string): TextItem["label"] {
    const previous = this.sink.items[this.sink.items.length - 1];
    const figureLike = /^(figure|fig\.?|image|chart)\s*\d/i.test(text);
    const tableLike = /^table\s*\d/i.test(text);
    if (styleName === "caption") {
      if (tableLike || (!figureLike && previous?.label === "table")) return "table_caption";
      return "figure_caption";
    }
    if (figureLike && previous?.label === "figure") return "figure_caption";
    if (tableLike && previous?.label === "table") return "table_caption";
    return "text";
  }

  /** The next number of a list level: counters of deeper levels restart. */
  nextNumber(numId: string, ilvl: number): { ordered: boolean; count: number; label: string } | null {
    const levels = this.numbering.levels.get(numId);
    if (!levels) return null;
    const level = levels[ilvl] ?? levels[0];
    if (!level || level.format === "none") return null;
    const key = this.numbering.counterKey.get(numId) ?? numId;
    let counts = this.counters.get(key);
    if (!counts) {
      counts = [];
      this.counters.set(key, counts);
    }
    // A level reached without its parents counts them as started, as Word does (a 2.1.1 makes the next 2.x a 2.2).
    for (let i = 0; i < ilvl; i++) counts[i] ??= levels[i]?.start ?? 1;
    counts[ilvl] = counts[ilvl] === undefined ? level.start : counts[ilvl] + 1;
    counts.length = ilvl + 1;
    const ordered = level.format !== "bullet";
    const label = level.text.replace(/%(\d)/g, (_, n: string) => {
      const index = Number(n) - 1;
      const value = counts[index] ?? levels[index]?.start ?? 1;
      return formatNumber(value, levels[index]?.format ?? "decimal");
    });
    return { ordered, count: counts[ilvl], label: label.trim().replace(/\.$/, "") };
  }

  table(node: XmlElement, part: string): void {
    // A table of one cell is a frame around content (a boxed note, a layout wrapper), not data: its blocks are
    // read in place.
    const onlyRows = this.rowNodes(node);
    const onlyCells = onlyRows.length === 1 ? this.cellNodes(onlyRows[0]) : [];
    if (onlyCells.length === 1) {
      this.blocks(onlyCells[0], part);
      return;
    }
    const cells: TableCell[] = [];
    /** The cell covering each column of the previous row, for vertical merges. */
    let above: (TableCell | undefined)[] = [];
    let row = 0;
    let numCols = 0;
    let headerRows = 0;
    let headerOpen = true;
    for (const tr of this.rowNodes(node)) {
      const trPr = child(tr, "trPr");
      let col = Number(child(trPr, "gridBefore")?.attrs.val ?? 0);
      const current: (TableCell | undefined)[] = [];
      const isHeader = on(child(trPr, "tblHeader")) === true;
      if (isHeader && headerOpen) headerRows++;
      else headerOpen = false;
      for (const tc of this.cellNodes(tr)) {
        const tcPr = child(tc, "tcPr");
        const span = Math.max(1, Number(child(tcPr, "gridSpan")?.attrs.val ?? 1));
        const vMerge = child(tcPr, "vMerge");
        const continues = vMerge !== undefined && vMerge.attrs.val !== "restart";
        const previous = above[col];
        if (continues && previous && previous.col === col) {
          previous.rowSpan = row - previous.row + 1;
          for (let c = col; c < col + span; c++) current[c] = previous;
        } else {
          const cell: TableCell = {
            row,
            col,
            rowSpan: 1,
            colSpan: span,
            text: this.cellText(tc, part),
            columnHeader: false,
            rowHeader: false,
            bbox: null,
          };
          cells.push(cell);
          for (let c = col; c < col + span; c++) current[c] = cell;
        }
        col += span;
      }
      numCols = Math.max(numCols, col);
      above = current;
      row++;
    }
    if (row === 0 || numCols === 0) return;
    // Rows marked to repeat as headers are the header; without any, the first row is.
    const header = Math.max(1, headerRows);
    for (const cell of cells) if (cell.row < header) cell.columnHeader = true;
    this.sink.add<TableItem>({
      label: "table",
      numRows: row,
      numCols,
      cells,
      caption: null,
      furniture: false,
      prov: [prov()],
    });
  }

  rowNodes(table: XmlElement): XmlElement[] {
    const rows: XmlElement[] = [];
    const visit = (node: XmlElement) => {
      for (const item of elements(node)) {
        if (item.name === "tr") rows.push(item);
        else if (item.name === "sdt") visit(child(item, "sdtContent") ?? item);
        else if (item.name === "customXml") visit(item);
      }
    };
    visit(table);
    return rows;
  }

  cellNodes(row: XmlElement): XmlElement[] {
    const cells: XmlElement[] = [];
    const visit = (node: XmlElement) => {
      for (const item of elements(node)) {
        if (item.name === "tc") cells.push(item);
        else if (item.name === "sdt") visit(child(item, "sdtContent") ?? item);
        else if (item.name === "customXml") visit(item);
      }
    };
    visit(row);
    return cells;
  }

  /** A cell's text: its paragraphs (and nested tables' cells) joined by spaces. */
  cellText(cell: XmlElement, part: string): string {
    const parts: string[] = [];
    for (const block of this.blockNodes(cell)) {
      if (block.kind === "paragraph") {
        const { text } = renderRuns(this.runs(block.node, part));
        if (text) parts.push(text);
      } else {
        for (const row of this.rowNodes(block.node)) {
          for (const inner of this.cellNodes(row)) {
            const text = this.cellText(inner, part);
            if (text) parts.push(text);
          }
        }
      }
    }
    this.resetPending();
    return parts.join(" ");
  }

  /** Footnotes then endnotes, in the order they are referenced, as `[^n]: text` paragraphs. */
  notesAfterBody(): void {
    if (this.notes.length === 0) return;
    const rels = [...this.pkg.rels(this.main).values()];
    for (const kind of ["footnote", "endnote"] as const) {
      const rel: Relationship | undefined = rels.find(
        (entry) => entry.type === `${kind}s` && !entry.external,
      );
      const root = rel ? this.pkg.xml(rel.target) : undefined;
      if (!root || !rel) continue;
      const byId = new Map(childrenNamed(root, kind).map((note) => [note.attrs.id ?? "", note]));
      for (const note of this.notes) {
        if (note.kind !== kind) continue;
        const element = byId.get(note.id);
        if (!element) continue;
        const texts = descendants(element, "p")
          .map((paragraph) => renderRuns(this.runs(paragraph, rel.target)))
          .filter((rendered) => rendered.text);
        if (texts.length === 0) continue;
        const text = texts.map((rendered) => rendered.text).join(" ");
        const markdown = texts.map((rendered) => rendered.markdown).join(" ");
        this.sink.add<TextItem>({
          label: "text",
          text,
          markdown: `[^${note.number}]: ${markdown}`,
          furniture: false,
          prov: [prov()],
        });
      }
    }
  }
}

function prov() {
  return { page: PAGE, bbox: null, charSpan: null };
}

export const docxBackend: FormatBackend = {
  name: "docx",
  mimeTypes: DOCX_MIME_TYPES,
  load(input) {
    const pkg = new OoxmlPackage(input.bytes ?? new Uint8Array(), "DOCX");
    const main = pkg.mainPart() ?? (pkg.has("word/document.xml") ? "word/document.xml" : undefined);
    if (!main || !pkg.has(main)) {
      throw new DocumentLoadError("The DOCX package has no main document part (word/document.xml)");
    }
    const model = new DocxReader(pkg, main, input.parsing.remove_strikethrough_lines).read();
    model.mimeType = input.mimeType;
    return model;
  },
};
