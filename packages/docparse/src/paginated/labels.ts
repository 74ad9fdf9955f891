import type { PageSize } from "../model.ts";
import { type Block, blockText, LIST_MARKER } from "./blocks.ts";
import { readsAsCode } from "./code-evidence.ts";
import { opensWithDayDate } from "./day-dates.ts";
import { box } from "./geometry.ts";
import { opensNote } from "./note-marker.ts";
import { inNumberedList } from "./numbered-items.ts";
import { OF_PAGES, OF_WORD, PAGE_WORD } from "./page-number-phrase.ts";

/** What a block is, as the layout code decides it from geometry and font statistics. */
export type BlockLabel =
  | {
      label:
        | "text"
        | "title"
        | "table_caption"
        | "figure_caption"
        | "formula"
        | "page_number"
        | "code"
        | "key_value_region";
    }
  | { label: "section_header"; level: number }
  | { label: "list_item"; marker: string; ordered: boolean };

/** Font statistics of the whole document, which headings are judged against. */
export interface DocumentStyle {
  /** The size most body text is set in. */
  bodySize: number;
  /** The font most body-size text is set in, when known. */
  bodyFont?: string;
  /** Largest size on the first page: the title's candidate. */
  titleSize: number;
}

const MONOSPACE = /mono|courier|consol|menlo|cmtt|sftt|lmtt|inconsolata|sourcecode|source code|typewriter/i;
const MATH_FONT =
  /^(cm(mi|sy|ex|bsy)|msbm|msam|eufm|euex|rsfs|stix.*math|cambriamath|cambria math|symbol|mtextra|mt extra|txsy|txex|pxsy|.*math)/i;
/**
 * `Figure 2.`, `Table 3:`, `Fig. 4b`, `TABLE IV`, `Figure 7-26.`, `Example 2-1`: the caption word (any case),
 * then a number.
 */
const CAPTION_WORD = /^(figure|fig\.|table|tab\.|chart|exhibit|listing|example|algorithm|scheme|plate)\s*/i;
const CAPTION_NUMBER = /^(?:\d+|[IVXL]+|[A-Z])[a-z]?(?:[.-]\d+)*\s*[.:|\-–—]?(\s|$)/;
/**
 * `12`, `Page 3 of 10`, `Pg: 1 of 1`, `- 4 -`, `xiv`, `1 von 2`: a page number alone, its word spelt out or
 * shortened (a court's docket stamp writes `Pg:`), the count of pages after it in the page's language; its
 * digits in any script (a Persian page's `۶`).
 */
const PAGE_NUMBER = new RegExp(
  String.raw`^(?:${PAGE_WORD}\s*:?\s+)?(?:\p{Nd}{1,4}|[ivxlc]{1,7})(?:\s*${OF_PAGES}\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$`,
  "iu",
);
/** `1 von 2`, `Page 3 of 10`, `2 de 5`: a page's number with the count of pages, in words. */
const PAGE_COUNT = new RegExp(String.raw`^(?:${PAGE_WORD}\s*:?\s*)?\d{1,4}\s+${OF_WORD}\s+\d{1,4}$`, "iu");

/** The share of the page's height below which a page count line may stand when it is the page's lowest block. */
const COUNT_FOOT_SHARE = 0.8;

/**
 * A one-line page count (`1 von 2`) under everything else on its page, in its lowest fifth: the page number, even
 * above the band where page numbers are looked for, as on a page with a deep foot margin. Naming the count of
 * pages, it is not a figure of the text.
 */
function pageCountAtFoot(block: Block, text: string, page: PageSize, pageBlocks: readonly Block[]): boolean {
  if (block.lines.length !== 1 || block.box.y1 < page.height * COUNT_FOOT_SHARE) return false;
  if (!PAGE_COUNT.test(text.trim())) return false;
  return pageBlocks.every((other) => other === block || other.box.y2 <= block.box.y1);
}

/**
 * `2.1 Methods`, `IV. RESULTS`, `A.2 Proofs`, `B. Data`, `Chapter 3`, `Section 2.3.1`: numbering that says a
 * heading's depth. A lone capital without a dot (`A Note on…`) is a word, not a number.
 */
const HEADING_NUMBER =
  /^(?:(?:[Cc]hapter|[Ss]ection|[Pp]art|[Aa]ppendix|CHAPTER|SECTION|PART|APPENDIX)\s+)?(\d{1,2}(?:\.\d{1,2})*|[A-Z](?:\.\d{1,2})+|[A-Z](?=\.)|[IVX]{1,5}(?=[.\s]))(?:\.?\s+\S|\.?$)/;

/** Whether a heading's text opens with numbering that gives its depth (`2.1 Methods`), a day-first date aside. */
export function numberedHeading(text: string): boolean {
  return !opensWithDayDate(text) && HEADING_NUMBER.test(text);
}

/** `end`, `end for`, `return`, `differentiate`: one word or two, all in small letters. */
const LOWERCASE_KEYWORD = /^\p{Ll}+(?: \p{Ll}+)?$/u;

/**
 * `ibm.com/redbooks`, `www.example.org`, `https://x.io/a`, `name@example.org`: a web or mail address alone, which
 * names no section.
 */
const WEB_ADDRESS = /^(?:https?:\/\/|[\w.+-]+@)?(?:[\w-]+\.)+\p{L}{2,}(?:\/\S*)?$/iu;

/** `Invoice number: 4711`, `Date: 2 May`: a short label, a colon, a value on the same line. */
const KEY_VALUE = /^[^:.!?]{1,40}:(?!\/\/)\s*\S/;

/** True when the text opens with a caption word and a number. */
function isCaption(text: string): boolean {
  const word = CAPTION_WORD.exec(text);
  return word !== null && CAPTION_NUMBER.test(text.slice(word[0].length));
}

function styleKey(size: number, bold: boolean): string {
  return `${Math.round(size)}|${bold ? "b" : "r"}`;
}

function charsOf(block: Block, test: (fontName: string) => boolean): number {
  let n = 0;
  for (const line of block.lines) for (const run of line.runs) if (test(run.fontName)) n += run.text.length;
  return n;
}

function totalChars(block: Block): number {
  return block.lines.reduce((n, line) => n + line.runs.reduce((m, run) => m + run.text.length, 0), 0);
}

/** The size of the block's first line. */
/**
 * The block opens with a raised mark (a superscript `1` or `*` smaller than the text after it, its baseline above
 * the text's): a note or an affiliation (`¹ Department of …`) under a title, never a heading, however large it is
 * set; the mark is no section number.
 */
function opensWithRaisedMark(block: Block): boolean {
  const line = block.lines[0];
  if (!opensNote(line)) return false;
  const [mark, next] = [...line.runs].sort((a, b) => a.box.x1 - b.box.x1);
  return mark.box.y2 < next.box.y2 - next.fontSize * 0.15;
}

function blockSize(block: Block): number {
  return block.lines[0].fontSize;
}

/**
 * True when some line sets a share of its letters in bold and a share not: a keyword with its arguments
 * (`ON <table name>`), a bold lead-in of a sentence. A heading is set in one weight.
 */
function mixedWeight(block: Block): boolean {
  return block.lines.some((line) => {
    let bold = 0;
    let regular = 0;
    for (const run of line.runs) {
      const letters = run.text.match(/\p{L}/gu)?.length ?? 0;
      if (run.bold) bold += letters;
      else regular += letters;
    }
    return Math.min(bold, regular) >= Math.max(2, (bold + regular) * 0.1);
  });
}

/**
 * An unnumbered heading's level from its own size and weight against the body: half as large again as the body
 * (a LaTeX section, a report's chapter head) is 1, about a quarter larger (a subsection) 2, a little larger or
 * bold in the body's size 3, a heading set only apart by its face (italic, another font) 4. Bold counts as a step of
 * about 15% in size. The level is the heading's own: what other headings the document happens to hold does not
 * move it.
 */
function levelBySize(size: number, bold: boolean, bodySize: number): number {
  const weight = (size / bodySize) * (bold ? 1.15 : 1);
  if (weight >= 1.5) return 1;
  if (weight >= 1.25) return 2;
  if (weight >= 1.12) return 3;
  return 4;
}

/** A Chinese or Japanese sentence's end: a full stop, exclamation or question mark, then closing quotes. */
const CJK_SENTENCE_END = /[。！？][」』﹂﹄”’）)]*$/u;

/** Could this block be a heading by its look alone: short, few lines, larger or bold, no sentence end. */
function headingLike(block: Block, text: string, bodySize: number, bodyFont?: string): boolean {
  if (block.lines.length > 3 || text.length > 160 || text.length < 2) return false;
  if (!/\p{L}/u.test(text) || WEB_ADDRESS.test(text.trim()) || mixedWeight(block)) return false;
  const size = blockSize(block);
  const bold = block.lines.every((line) => line.bold);
  // A larger line ending in a colon introduces what follows (`For more information:`) unless it is numbered.
  if (size >= bodySize * 1.15) return !/[,;]$/.test(text) && (!/:$/.test(text) || HEADING_NUMBER.test(text));
  // In the body's size, a word or two in bold and all in small letters is a keyword (an algorithm's `end for`,
  // `return`), not a heading: headings open with a capital or a number.
  // Nor is a bold sentence ended by a Chinese or Japanese full stop (a passage set in a bold face beside its
  // regular copies, a type sample): a heading there ends without one.
  if (bold && size >= bodySize * 0.9)
    return (
      (!/[.,;:]$/.test(text) || HEADING_NUMBER.test(text)) &&
      !LOWERCASE_KEYWORD.test(text) &&
      !CJK_SENTENCE_END.test(text)
    );
  // A line or two a little larger than the body and in another font (a sans heading over serif text).
  if (
    block.lines.length <= 2 &&
    size >= bodySize * 1.05 &&
    bodyFont !== undefined &&
    block.lines.every((line) => line.fontName !== bodyFont)
  )
    return !/[.,;:]$/.test(text);
  // A lone italic line in body size, capitalized and without a sentence end: a run-in heading of handbooks.
  const italic = block.lines.every((line) => line.italic);
  return (
    italic && block.lines.length === 1 && text.length <= 80 && /^\p{Lu}/u.test(text) && !/[.,;:]$/.test(text)
  );
}

/**
 * Body size and heading levels from every block of the document. `layerBodySize`, when given, is the size most of
 * the whole text layer is set in, table cells included: the body is the larger of the two, as either count can be
 * pulled down by small print that dominates it (a table's cells in small type, a form's fine print, an invoice
 * whose running text sits in its tables) but neither is pulled up by headings; and text moving between a table
 * and the blocks around it then leaves the body, which every heading is judged against, where it was.
 */
export function documentStyle(
  blocks: readonly Block[],
  firstPageBlocks: readonly Block[],
  layerBodySize = 0,
): DocumentStyle {
  const weight = new Map<number, number>();
  for (const block of blocks) {
    for (const line of block.lines) {
      const size = Math.round(line.fontSize * 2) / 2;
      weight.set(size, (weight.get(size) ?? 0) + line.text.length);
    }
  }
  let blockBody = 10;
  let best = -1;
  for (const [size, w] of weight) {
    if (w > best) {
      blockBody = size;
      best = w;
    }
  }
  const bodySize = Math.max(blockBody, layerBodySize);
  const fonts = new Map<string, number>();
  for (const block of blocks) {
    for (const line of block.lines) {
      if (Math.abs(line.fontSize - bodySize) <= 0.25)
        fonts.set(line.fontName, (fonts.get(line.fontName) ?? 0) + line.text.length);
    }
  }
  const bodyFont = [...fonts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const titleSize = Math.max(0, ...firstPageBlocks.map(blockSize));
  return { bodySize, bodyFont, titleSize };
}

/**
 * True when the heading-like `block` is one of a group of labels, not a heading: it shares its row with two or
 * more heading-like blocks side by side (the labels of a diagram, the titles of a row of cards), it is one item
 * of a list of numbered items (`inNumberedList`), or, unnumbered,
 * it is stacked against another block of its style with no text between them (the taglines of a cover).
 * `pageBlocks` are the page's blocks in reading order.
 */
function inLabelGroup(block: Block, pageBlocks: readonly Block[], style: DocumentStyle): boolean {
  const alike = (other: Block) => headingLike(other, blockText(other), style.bodySize, style.bodyFont);
  const beside = pageBlocks.filter(
    (other) =>
      other !== block &&
      (other.box.x1 >= block.box.x2 || other.box.x2 <= block.box.x1) &&
      box.verticalOverlap(block.box, other.box) >= 0.5 &&
      alike(other),
  );
  if (beside.length >= 2) return true;
  // One of a list of numbered items (a card's `A.`, `B.`, … on a slide), however large or bold.
  if (inNumberedList(block, pageBlocks)) return true;
  if (HEADING_NUMBER.test(blockText(block))) return false;
  const key = (b: Block) =>
    styleKey(
      blockSize(b),
      b.lines.every((line) => line.bold),
    );
  const at = pageBlocks.indexOf(block);
  return [pageBlocks[at - 1], pageBlocks[at + 1]].some(
    (other) =>
      other !== undefined &&
      at >= 0 &&
      key(other) === key(block) &&
      Math.abs(other.box.x1 - block.box.x1) <= blockSize(block) * 0.5 &&
      alike(other),
  );
}

/** Lines a paragraph of the page holds at least, to show the face its running text is set in. */
const PARAGRAPH_LINES = 3;

/**
 * True when the heading-like `block`, unnumbered, is set in the face, size and weight of a paragraph of several
 * lines on its page (one that is no heading itself): a short line of that running text, not a heading. A
 * filled-in form sets its typed answers larger than its printed labels, and an answer of one line (`N/A`, `None
 * known`) would otherwise stand out from the labels, the document's body, as a heading.
 */
function setAsParagraph(block: Block, pageBlocks: readonly Block[], style: DocumentStyle): boolean {
  // Numbering says it is a heading, whatever face it shares (an agenda's `5.1 Board Governance`).
  if (HEADING_NUMBER.test(blockText(block))) return false;
  const line = block.lines[0];
  const same = (other: Block) =>
    other.lines.every(
      (l) =>
        l.fontName === line.fontName && l.bold === line.bold && Math.abs(l.fontSize - line.fontSize) < 0.5,
    );
  if (!same(block)) return false;
  return pageBlocks.some(
    (other) =>
      other !== block &&
      other.lines.length >= PARAGRAPH_LINES &&
      same(other) &&
      !headingLike(other, blockText(other), style.bodySize, style.bodyFont),
  );
}

/** Two Chinese or Japanese characters in a row (ideographs or kana): a word of prose. */
const CJK_WORD = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}]{2}/u;

/** A choice's letter opening a text, capital or small, with its stop or parenthesis: `A. `, `(b) `. */
const LETTERED_CHOICE = /^\(?[A-Za-z][.)]\s/;

/**
 * Labels one block. `page` is the page's size; `firstPage` says whether the block is on the document's first
 * page, where the title is looked for; `titleTaken` whether a title was already found; `pageBlocks`, when
 * given, the page's blocks in reading order, against which a heading must stand alone.
 */
export function labelBlock(
  block: Block,
  page: PageSize,
  style: DocumentStyle,
  where: { firstPage: boolean; titleTaken: boolean; pageBlocks?: readonly Block[] },
): BlockLabel {
  const text = blockText(block);
  const chars = Math.max(1, totalChars(block));
  const size = blockSize(block);
  const marginal = block.box.y2 < page.height * 0.2 || block.box.y1 > page.height * 0.85;
  if (block.lines.length === 1 && marginal && PAGE_NUMBER.test(text.trim())) return { label: "page_number" };
  if (where.pageBlocks && pageCountAtFoot(block, text, page, where.pageBlocks))
    return { label: "page_number" };
  if (isCaption(text)) {
    return { label: /^(table|tab\.)/i.test(text) ? "table_caption" : "figure_caption" };
  }
  if (
    charsOf(block, (font) => MONOSPACE.test(font)) > chars * 0.6 &&
    readsAsCode(block.lines.map((line) => line.text))
  )
    return { label: "code" };
  // Mostly maths, but no words of prose, nor a word and a colon that label it (an algorithm's `Input: x1, …, xn`),
  // nor Chinese or Japanese words (a question set with its formula), nor a lettered choice's label (an exam's
  // `A. {2}`, a choice among others, not a display formula).
  if (
    charsOf(block, (font) => MATH_FONT.test(font)) > chars * 0.4 &&
    !/\p{L}{4,}\s\p{L}{4,}/u.test(text) &&
    !/^\p{L}{3,}:\s/u.test(text) &&
    !CJK_WORD.test(text) &&
    !LETTERED_CHOICE.test(text)
  ) {
    return { label: "formula" };
  }
  if (block.lines.length >= 2 && block.lines.every((line) => KEY_VALUE.test(line.text))) {
    return { label: "key_value_region" };
  }
  const note = opensWithRaisedMark(block);
  if (
    !note &&
    where.firstPage &&
    !where.titleTaken &&
    size >= style.bodySize * 1.3 &&
    size >= style.titleSize - 0.5 &&
    block.box.y1 < page.height * 0.5 &&
    block.lines.length <= 4 &&
    text.length <= 250
  ) {
    return { label: "title" };
  }
  const marker = LIST_MARKER.exec(text);
  if (
    !note &&
    headingLike(block, text, style.bodySize, style.bodyFont) &&
    !(
      where.pageBlocks &&
      (inLabelGroup(block, where.pageBlocks, style) || setAsParagraph(block, where.pageBlocks, style))
    )
  ) {
    const numbered = opensWithDayDate(text) ? null : HEADING_NUMBER.exec(text);
    const depth = numbered ? numbered[1].split(".").filter(Boolean).length : 0;
    const byStyle = levelBySize(
      size,
      block.lines.every((line) => line.bold),
      style.bodySize,
    );
    // A numbered heading's depth is its level; a `1.` that opens a list of bold phrases is still a heading, and
    // so is a `(1)` set larger than the body, as list items are not.
    if (!marker || numbered || size >= style.bodySize * 1.05)
      return { label: "section_header", level: depth > 0 ? Math.min(depth, 6) : byStyle };
  }
  if (marker) {
    const raw = marker[0];
    const ordered = /[\dA-Za-z]/.test(raw);
    return { label: "list_item", marker: ordered ? raw : "-", ordered };
  }
  return { label: "text" };
}

/** The text of a list item without its marker. */
export function withoutMarker(text: string): string {
  return text.replace(LIST_MARKER, "").trimStart();
}
