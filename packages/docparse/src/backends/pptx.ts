import type { FormatBackend } from "../backend.ts";
import {
  type Box,
  DOCUMENT_MODEL_VERSION,
  DocumentLoadError,
  type DocumentModel,
  type FigureItem,
  ItemSink,
  type ListItem,
  type ModelPage,
  type PageSize,
  type TableItem,
  type TextItem,
} from "../model.ts";
import { addComment } from "../ooxml/comments.ts";
import { addChart } from "../ooxml/drawing.ts";
import { type InlineRun, renderRuns } from "../ooxml/inline.ts";
import { OoxmlPackage } from "../ooxml/package.ts";
import { readSlideTable } from "../ooxml/slide-table.ts";
import { child, childrenNamed, descendants, elements, path, textOf, type XmlElement } from "../ooxml/xml.ts";

/**
 * PPTX (and PPSX, POTX, PPTM): one page per slide, sized from presentation.xml (EMU → points). On each slide
 * the title placeholder is the page's title, then shapes in reading order (top to bottom, left to right by
 * their boxes, placeholders placed where their layout puts them): text boxes as paragraphs and lists (bullet
 * levels from `a:pPr/@lvl`), tables with spans, charts (a figure and its data table), pictures as figures.
 * Date, footer and slide-number placeholders are furniture; speaker notes are kept as furniture text items
 * flagged `speakerNotes`.
 */
export const PPTX_MIME_TYPES = [
  "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  "application/vnd.openxmlformats-officedocument.presentationml.slideshow",
  "application/vnd.openxmlformats-officedocument.presentationml.template",
  "application/vnd.ms-powerpoint.presentation.macroenabled.12",
  "application/vnd.ms-powerpoint.slideshow.macroenabled.12",
] as const;

const EMU_PER_POINT = 12_700;

/** A shape placed on the slide: its box in points and the node. */
interface Placed {
  node: XmlElement;
  box: Box | null;
}

/** A group's mapping from its children's coordinates to the slide's. */
interface Transform {
  scaleX: number;
  scaleY: number;
  dx: number;
  dy: number;
}

const IDENTITY: Transform = { scaleX: 1, scaleY: 1, dx: 0, dy: 0 };

function xfrmBox(xfrm: XmlElement | undefined, transform: Transform): Box | null {
  const off = child(xfrm, "off");
  const ext = child(xfrm, "ext");
  if (!off || !ext) return null;
  const x = Number(off.attrs.x ?? 0) * transform.scaleX + transform.dx;
  const y = Number(off.attrs.y ?? 0) * transform.scaleY + transform.dy;
  const w = Number(ext.attrs.cx ?? 0) * transform.scaleX;
  const h = Number(ext.attrs.cy ?? 0) * transform.scaleY;
  return {
    x1: x / EMU_PER_POINT,
    y1: y / EMU_PER_POINT,
    x2: (x + w) / EMU_PER_POINT,
    y2: (y + h) / EMU_PER_POINT,
  };
}

function placeholder(node: XmlElement): XmlElement | undefined {
  const nv = elements(node).find((item) => item.name.startsWith("nv"));
  return path(nv, "nvPr", "ph");
}

const TITLE_TYPES = new Set(["title", "ctrTitle"]);
const FURNITURE_TYPES: Record<string, TextItem["label"]> = {
  dt: "page_footer",
  ftr: "page_footer",
  hdr: "page_header",
  sldNum: "page_number",
};

class PptxReader {
  readonly pkg: OoxmlPackage;
  readonly main: string;
  readonly sink = new ItemSink();
  readonly warnings: string[] = [];
  readonly pages: ModelPage[] = [];
  size: PageSize | null = null;

  /** remove_strikethrough_lines: struck runs are dropped, their pages counted. */
  readonly removeStruck: boolean;
  readonly struckPages = new Set<number>();
  /** The slide being read. */
  page = 0;

  constructor(pkg: OoxmlPackage, main: string, removeStruck: boolean) {
    this.pkg = pkg;
    this.main = main;
    this.removeStruck = removeStruck;
  }

  read(): DocumentModel {
    const root = this.pkg.requireXml(this.main);
    const sldSz = child(root, "sldSz");
    if (sldSz) {
      this.size = {
        width: Number(sldSz.attrs.cx ?? 0) / EMU_PER_POINT,
        height: Number(sldSz.attrs.cy ?? 0) / EMU_PER_POINT,
      };
    }
    const rels = this.pkg.rels(this.main);
    for (const id of childrenNamed(child(root, "sldIdLst"), "sldId")) {
      const rel = rels.get(id.attrs.id ?? "");
      if (!rel || rel.external) continue;
      const page = this.pages.length + 1;
      this.pages.push({ pageNumber: page, size: this.size });
      const slide = this.pkg.xml(rel.target);
      if (!slide) {
        this.warnings.push(`Slide ${page} has no part ${rel.target}`);
        continue;
      }
      if (slide.attrs.show === "0" || slide.attrs.show === "false") {
        this.warnings.push(`Slide ${page} is hidden in the slide show; its content is kept`);
      }
      this.page = page;
      this.slide(slide, rel.target, page);
    }
    return {
      version: DOCUMENT_MODEL_VERSION,
      mimeType: "",
      backend: "pptx",
      pages: this.pages,
      items: this.sink.items,
      warnings: this.warnings,
      ...(this.struckPages.size > 0 ? { struckPages: [...this.struckPages] } : {}),
    };
  }

  /** The layout (and its master) placeholders of a slide, for shapes that inherit their position. */
  inherited(part: string): XmlElement[] {
    const out: XmlElement[] = [];
    let current = part;
    for (let depth = 0; depth < 2; depth++) {
      const rel = [...this.pkg.rels(current).values()].find(
        (entry) => (entry.type === "slideLayout" || entry.type === "slideMaster") && !entry.external,
      );
      if (!rel) break;
      const root = this.pkg.xml(rel.target);
      if (!root) break;
      out.push(...descendants(root, "sp"));
      current = rel.target;
    }
    return out;
  }

  /** A placeholder's box from the layout or master placeholder of the same index or type. */
  inheritedBox(ph: XmlElement, inherited: XmlElement[]): Box | null {
    const type = ph.attrs.type ?? "body";
    const idx = ph.attrs.idx;
    // Layout placeholders come before the master's; one without a position of its own defers to the next.
    const placed = inherited.filter((sp) => path(sp, "spPr", "xfrm", "off") !== undefined);
    const match =
      placed.find((sp) => idx !== undefined && placeholder(sp)?.attrs.idx === idx) ??
      placed.find((sp) => (placeholder(sp)?.attrs.type ?? "body") === type);
    return match ? xfrmBox(path(match, "spPr", "xfrm"), IDENTITY) : null;
  }

  /** The shapes of a tree, groups flattened with their transforms. */
  flatten(tree: XmlElement, transform: Transform, inherited: XmlElement[], out: Placed[]): Placed[] {
    for (const node of elements(tree)) {
      if (node.name === "grpSp") {
        const xfrm = path(node, "grpSpPr", "xfrm");
        const off = child(xfrm, "off");
        const ext = child(xfrm, "ext");
        const chOff = child(xfrm, "chOff");
        const chExt = child(xfrm, "chExt");
        let inner = transform;
        if (off && ext && chOff && chExt) {
          const scaleX = Number(chExt.attrs.cx) ? Number(ext.attrs.cx) / Number(chExt.attrs.cx) : 1;
          const scaleY = Number(chExt.attrs.cy) ? Number(ext.attrs.cy) / Number(chExt.attrs.cy) : 1;
          inner = {
            scaleX: scaleX * transform.scaleX,
            scaleY: scaleY * transform.scaleY,
            dx: (Number(off.attrs.x) - Number(chOff.attrs.x) * scaleX) * transform.scaleX + transform.dx,
            dy: (Number(off.attrs.y) - Number(chOff.attrs.y) * scaleY) * transform.scaleY + transform.dy,
          };
        }
        this.flatten(node, inner, inherited, out);
      } else if (node.name === "AlternateContent") {
        const choice = child(node, "Choice") ?? child(node, "Fallback");
        if (choice) this.flatten(choice, transform, inherited, out);
      } else if (
        node.name === "sp" ||
        node.name === "pic" ||
        node.name === "graphicFrame" ||
        node.name === "cxnSp"
      ) {
        const xfrm = node.name === "graphicFrame" ? child(node, "xfrm") : path(node, "spPr", "xfrm");
        let box = xfrmBox(xfrm, transform);
        const ph = placeholder(node);
        if (!box && ph) box = this.inheritedBox(ph, inherited);
        out.push({ node, box });
      }
    }
    return out;
  }

  slide(root: XmlElement, part: string, page: number): void {
    const tree = path(root, "cSld", "spTree");
    if (!tree) return;
    const shapes = this.flatten(tree, IDENTITY, this.inherited(part), []);
    // Titles first, then top to bottom; shapes whose tops are within a few points read left to right.
    const isTitle = (shape: Placed) => TITLE_TYPES.has(placeholder(shape.node)?.attrs.type ?? "");
    const ordered = shapes
      .map((shape, index) => ({ shape, index }))
      .sort((a, b) => {
        const titleOrder = Number(isTitle(b.shape)) - Number(isTitle(a.shape));
        if (titleOrder !== 0) return titleOrder;
        const boxA = a.shape.box;
        const boxB = b.shape.box;
        if (!boxA || !boxB) return a.index - b.index;
        if (Math.abs(boxA.y1 - boxB.y1) > 4) return boxA.y1 - boxB.y1;
        return boxA.x1 - boxB.x1 || a.index - b.index;
      })
      .map(({ shape }) => shape);
    for (const shape of ordered) this.shape(shape, part, page);
    this.comments(part, page);
    this.notes(part, page);
  }

  #authors: Map<string, string> | null = null;

  /** Comment authors by id: `Name (initials)` from the legacy list, display names from the modern one. */
  authors(): Map<string, string> {
    if (this.#authors) return this.#authors;
    const authors = new Map<string, string>();
    for (const rel of this.pkg.rels(this.main).values()) {
      if (rel.external || (rel.type !== "commentAuthors" && rel.type !== "authors")) continue;
      const root = this.pkg.xml(rel.target);
      for (const author of [...childrenNamed(root, "cmAuthor"), ...childrenNamed(root, "author")]) {
        const name = author.attrs.name ?? "";
        const initials = author.attrs.initials;
        authors.set(author.attrs.id ?? "", initials ? `${name} (${initials})` : name);
      }
    }
    this.#authors = authors;
    return authors;
  }

  /** The slide's review comments (legacy `p:cm` and modern threaded ones), after its content. */
  comments(part: string, page: number): void {
    for (const rel of this.pkg.rels(part).values()) {
      if (rel.external || rel.type !== "comments") continue;
      const root = this.pkg.xml(rel.target);
      if (!root) continue;
      for (const cm of childrenNamed(root, "cm")) {
        const legacy = child(cm, "text");
        const text = legacy ? textOf(legacy) : descendants(cm, "t").map(textOf).join(" ");
        const author = this.authors().get(cm.attrs.authorId ?? "") ?? null;
        addComment(this.sink, text, author, cm.attrs.dt ?? cm.attrs.created ?? null, {
          page,
          bbox: null,
          charSpan: null,
        });
        // Modern comments hold their replies inside.
        for (const reply of descendants(cm, "reply")) {
          const replyAuthor = this.authors().get(reply.attrs.authorId ?? "") ?? null;
          const replyText = descendants(reply, "t").map(textOf).join(" ");
          addComment(this.sink, replyText, replyAuthor, reply.attrs.created ?? null, {
            page,
            bbox: null,
            charSpan: null,
          });
        }
      }
    }
  }

  shape(shape: Placed, part: string, page: number): void {
    const { node, box } = shape;
    const prov = { page, bbox: box, charSpan: null };
    if (node.name === "pic") {
      this.sink.add<FigureItem>({
        label: "figure",
        caption: null,
        source: null,
        furniture: false,
        prov: [prov],
      });
      return;
    }
    if (node.name === "graphicFrame") {
      const data = path(node, "graphic", "graphicData");
      const table = child(data, "tbl");
      if (table) {
        this.table(table, prov);
        return;
      }
      const chart = child(data, "chart");
      if (chart) {
        const rel = this.pkg.rels(part).get(chart.attrs.id ?? "");
        if (rel && !rel.external && addChart(this.sink, this.pkg, rel.target, prov)) return;
      }
      // SmartArt: a figure, and the text of its nodes (from the diagram's data part) as a list.
      const diagram = child(data, "relIds");
      const dataRel = diagram ? this.pkg.rels(part).get(diagram.attrs.dm ?? "") : undefined;
      if (dataRel && !dataRel.external) {
        this.sink.add<FigureItem>({
          label: "figure",
          caption: null,
          source: null,
          furniture: false,
          prov: [prov],
        });
        const points = this.pkg.xml(dataRel.target);
        for (const point of points ? descendants(points, "pt") : []) {
          if ((point.attrs.type ?? "node") !== "node") continue;
          const text = descendants(point, "t").map(textOf).join("").trim();
          if (!text) continue;
          this.sink.add<ListItem>({
            label: "list_item",
            text,
            ordered: false,
            marker: "-",
            depth: 0,
            furniture: false,
            prov: [prov],
          });
        }
        return;
      }
      if (data)
        this.sink.add<FigureItem>({
          label: "figure",
          caption: null,
          source: null,
          furniture: false,
          prov: [prov],
        });
      return;
    }
    const body = child(node, "txBody");
    if (!body) return;
    const ph = placeholder(node);
    const type = ph ? (ph.attrs.type ?? "body") : null;
    if (type && TITLE_TYPES.has(type)) {
      const paragraphs = childrenNamed(body, "p").map((p) => renderRuns(this.runs(p, part)));
      const text = paragraphs
        .map((p) => p.text)
        .filter(Boolean)
        .join(" ");
      if (text) this.sink.add<TextItem>({ label: "title", text, furniture: false, prov: [prov] });
      return;
    }
    if (type && FURNITURE_TYPES[type]) {
      const text = renderRuns(this.runs(body, part)).text;
      if (text)
        this.sink.add<TextItem>({ label: FURNITURE_TYPES[type], text, furniture: true, prov: [prov] });
      return;
    }
    // Content placeholders (body, object, or an index with no type) are bulleted by the master's body style.
    const bulletedByDefault = type !== null && (type === "body" || type === "obj");
    this.paragraphs(body, part, prov, bulletedByDefault);
  }

  paragraphs(
    body: XmlElement,
    part: string,
    prov: TextItem["prov"][number],
    bulletedByDefault: boolean,
  ): void {
    const counters: number[] = [];
    for (const p of childrenNamed(body, "p")) {
      const { text, markdown } = renderRuns(this.runs(p, part));
      const pPr = child(p, "pPr");
      const level = Number(pPr?.attrs.lvl ?? 0);
      if (!text) continue;
      const autoNumber = child(pPr, "buAutoNum");
      const bullet = child(pPr, "buNone")
        ? false
        : Boolean(autoNumber || child(pPr, "buChar") || child(pPr, "buBlip")) || bulletedByDefault;
      const md = markdown === text ? undefined : markdown;
      if (!bullet) {
        counters.length = 0;
        this.sink.add<TextItem>({ label: "text", text, markdown: md, furniture: false, prov: [prov] });
        continue;
      }
      counters.length = level + 1;
      counters[level] = autoNumber ? (counters[level] ?? Number(autoNumber.attrs.startAt ?? 1) - 1) + 1 : 0;
      this.sink.add<ListItem>({
        label: "list_item",
        text,
        markdown: md,
        ordered: Boolean(autoNumber),
        marker: autoNumber ? `${counters[level]}.` : "-",
        depth: level,
        furniture: false,
        prov: [prov],
      });
    }
  }

  runs(p: XmlElement, part: string): InlineRun[] {
    const out: InlineRun[] = [];
    for (const node of elements(p)) {
      if (node.name === "r" || node.name === "fld") {
        const rPr = child(node, "rPr");
        const click = child(rPr, "hlinkClick");
        const rel = click?.attrs.id ? this.pkg.rels(part).get(click.attrs.id) : undefined;
        const text = textOf(child(node, "t") ?? { name: "t", attrs: {}, children: [] });
        const strike = rPr?.attrs.strike !== undefined && rPr.attrs.strike !== "noStrike";
        if (strike && this.removeStruck) {
          if (text.trim()) this.struckPages.add(this.page);
          continue;
        }
        out.push({
          text,
          bold: rPr?.attrs.b === "1" || rPr?.attrs.b === "true",
          italic: rPr?.attrs.i === "1" || rPr?.attrs.i === "true",
          strike,
          link: rel?.external ? rel.target : null,
        });
      } else if (node.name === "br") {
        out.push({ text: "\n", bold: false, italic: false, strike: false, link: null });
      } else if (node.name === "p") {
        out.push(...this.runs(node, part), {
          text: " ",
          bold: false,
          italic: false,
          strike: false,
          link: null,
        });
      }
    }
    return out;
  }

  table(table: XmlElement, prov: TextItem["prov"][number]): void {
    const read = readSlideTable(table, (tc) =>
      childrenNamed(child(tc, "txBody"), "p")
        .map((p) => renderRuns(this.runs(p, "")).text)
        .filter(Boolean)
        .join(" "),
    );
    if (!read) return;
    this.sink.add<TableItem>({ label: "table", ...read, caption: null, furniture: false, prov: [prov] });
  }

  /** The slide's speaker notes (the notes page's body placeholder), as furniture flagged speakerNotes. */
  notes(part: string, page: number): void {
    const rel = [...this.pkg.rels(part).values()].find(
      (entry) => entry.type === "notesSlide" && !entry.external,
    );
    const root = rel ? this.pkg.xml(rel.target) : undefined;
    if (!root || !rel) return;
    for (const sp of descendants(root, "sp")) {
      if ((placeholder(sp)?.attrs.type ?? "") !== "body") continue;
      const text = childrenNamed(child(sp, "txBody"), "p")
        .map((p) => renderRuns(this.runs(p, rel.target)).text)
        .filter(Boolean)
        .join("\n");
      if (text) {
        this.sink.add<TextItem>({
          label: "text",
          text,
          speakerNotes: true,
          furniture: true,
          prov: [{ page, bbox: null, charSpan: null }],
        });
      }
    }
  }
}

export const pptxBackend: FormatBackend = {
  name: "pptx",
  mimeTypes: PPTX_MIME_TYPES,
  load(input) {
    const pkg = new OoxmlPackage(input.bytes ?? new Uint8Array(), "PPTX");
    const main = pkg.mainPart() ?? (pkg.has("ppt/presentation.xml") ? "ppt/presentation.xml" : undefined);
    if (!main || !pkg.has(main)) {
      throw new DocumentLoadError("The PPTX package has no presentation part (ppt/presentation.xml)");
    }
    const model = new PptxReader(pkg, main, input.parsing.remove_strikethrough_lines).read();
    model.mimeType = input.mimeType;
    return model;
  },
};
