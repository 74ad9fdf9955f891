import type { BackendRegistry, FormatBackend } from "../backend.ts";
import { officeAvailable } from "../libreoffice/pool.ts";
import { escapeInline } from "../markup/read-blocks.ts";
import {
  DOCUMENT_MODEL_VERSION,
  DocumentLoadError,
  type DocumentModel,
  type HeadingItem,
  ItemSink,
  type ListItem,
  type TableCell,
  type TableItem,
  type TextItem,
} from "../model.ts";
import { escapeMarkdownText } from "../views/markdown.ts";
import { convertAndLoad } from "./office-convert.ts";

/**
 * RTF read directly: a tokenizer over control words, groups and text. Paragraphs (`\par`), bold and italic runs,
 * headings (outline levels, or styles named "heading N"), list paragraphs (`\ls`/`\ilvl` with their
 * `\listtext`), tables (`\trowd` … `\cell` … `\row`), Unicode (`\uN` with its `\ucN` fallback skipped) and
 * code-page bytes (`\'hh` in the document's `\ansicpg` or the font's charset). Page headers and footers,
 * footnotes, fields' instructions, pictures and objects are left out. What this reader cannot make sense of goes
 * to LibreOffice (the office pool) when it is installed.
 */

/** Destinations whose content is not document text. */
const SKIPPED_DESTINATIONS = new Set([
  "fonttbl",
  "colortbl",
  "stylesheet",
  "info",
  "pict",
  "object",
  "header",
  "headerl",
  "headerr",
  "headerf",
  "footer",
  "footerl",
  "footerr",
  "footerf",
  "footnote",
  "fldinst",
  "themedata",
  "colorschememapping",
  "datastore",
  "latentstyles",
  "listtable",
  "listoverridetable",
  "rsidtbl",
  "generator",
  "xmlnstbl",
  "mmathPr",
  "filetbl",
  "revtbl",
  "pgdsctbl",
  "bkmkstart",
  "bkmkend",
  "shppict",
  "nonshppict",
  "shpinst",
  "userprops",
  "docvar",
  "template",
  "wgrffmtfilter",
  "pnseclvl",
  "xe",
  "tc",
]);

/** Windows code pages of RTF font charsets. */
const CHARSET_CODEPAGE: Record<number, number> = {
  0: 1252,
  128: 932,
  129: 949,
  134: 936,
  136: 950,
  161: 1253,
  162: 1254,
  163: 1258,
  177: 1255,
  178: 1256,
  186: 1257,
  204: 1251,
  222: 874,
  238: 1250,
};

interface GroupState {
  bold: boolean;
  italic: boolean;
  /** Characters to skip after `\uN`. */
  uc: number;
  skip: boolean;
  font: number;
  /** Inside `{\listtext …}`: the list marker, not text. */
  listText: boolean;
  /** Reading `\fonttbl` or `\stylesheet`. */
  table: "fonts" | "styles" | null;
}

interface Paragraph {
  md: string;
  text: string;
  style: number;
  outline: number | null;
  list: boolean;
  listLevel: number;
  inTable: boolean;
}

const newParagraph = (): Paragraph => ({
  md: "",
  text: "",
  style: 0,
  outline: null,
  list: false,
  listLevel: 0,
  inTable: false,
});

const decoders = new Map<number, InstanceType<typeof TextDecoder>>();

/** The decoder of a Windows code page (Windows-1252 for one the platform does not know), made once. */
function decoderFor(codepage: number): InstanceType<typeof TextDecoder> {
  let decoder = decoders.get(codepage);
  if (!decoder) {
    const label =
      { 932: "shift_jis", 936: "gbk", 949: "euc-kr", 950: "big5" }[codepage] ?? `windows-${codepage}`;
    try {
      decoder = new TextDecoder(label);
    } catch {
      decoder = new TextDecoder("windows-1252");
    }
    decoders.set(codepage, decoder);
  }
  return decoder;
}

/** Reads RTF text into items; throws DocumentLoadError when it is not RTF. */
export function readRtf(source: string, sink: ItemSink): void {
  if (!source.trimStart().startsWith("{\\rtf"))
    throw new DocumentLoadError("The file is not RTF: it does not start with {\\rtf");
  const stack: GroupState[] = [];
  let state: GroupState = {
    bold: false,
    italic: false,
    uc: 1,
    skip: false,
    font: 0,
    listText: false,
    table: null,
  };
  let codepage = 1252;
  const fontCodepage = new Map<number, number>();
  const styleNames = new Map<number, string>();
  const styleOutline = new Map<number, number>();
  let tableEntry = { number: 0, name: "" };
  let para = newParagraph();
  let pendingBytes: number[] = [];
  let skipChars = 0;
  // Formatting of the text written so far, to open and close markdown marks as runs change.
  let openBold = false;
  let openItalic = false;
  let rows: string[][] = [];
  let row: string[] = [];
  let cell = "";

  const closeMarks = () => {
    if (openItalic) para.md += "*";
    if (openBold) para.md += "**";
    openBold = false;
    openItalic = false;
  };
  const emitText = (value: string) => {
    if (value === "") return;
    if (state.table) {
      tableEntry.name += value;
      return;
    }
    if (state.skip || state.listText) return;
    if (para.inTable || state.table) {
      cell += value;
      return;
    }
    if (state.bold !== openBold || state.italic !== openItalic) {
      closeMarks();
      if (value.trim() !== "") {
        if (state.bold) para.md += "**";
        if (state.italic) para.md += "*";
        openBold = state.bold;
        openItalic = state.italic;
      }
    }
    para.md += escapeInline(value);
    para.text += value;
  };
  const flushBytes = () => {
    if (pendingBytes.length === 0) return;
    const cp = fontCodepage.get(state.font) ?? codepage;
    emitText(decoderFor(cp).decode(new Uint8Array(pendingBytes)));
    pendingBytes = [];
  };
  const flushTable = () => {
    if (rows.length === 0) return;
    let numCols = 0;
    for (const r of rows) numCols = Math.max(numCols, r.length);
    const cells: TableCell[] = [];
    rows.forEach((values, r) => {
      values.forEach((value, c) => {
        cells.push({
          row: r,
          col: c,
          rowSpan: 1,
          colSpan: 1,
          text: value.trim(),
          columnHeader: r === 0,
          rowHeader: false,
          bbox: null,
        });
      });
    });
    sink.add<TableItem>({
      label: "table",
      numRows: rows.length,
      numCols,
      cells,
      caption: null,
      furniture: false,
      prov: [{ page: 1, bbox: null, charSpan: null }],
    });
    rows = [];
  };
  const endParagraph = () => {
    flushBytes();
    closeMarks();
    const text = para.text.replace(/[ \t]+/g, " ").trim();
    const md = escapeMarkdownText(para.md.replace(/[ \t]+/g, " ").trim()).replace(/\*\*\s*\*\*/g, "");
    const prov = [{ page: 1, bbox: null, charSpan: null }];
    if (!para.inTable && text !== "") {
      flushTable();
      const styleName = styleNames.get(para.style) ?? "";
      const styleLevel =
        /^heading\s*(\d)/i.exec(styleName)?.[1] ?? (/^heading$/i.test(styleName) ? "1" : undefined);
      const outline = para.outline ?? styleOutline.get(para.style) ?? null;
      const level = outline !== null ? outline + 1 : styleLevel ? Number(styleLevel) : null;
      if (/^title$/i.test(styleName))
        sink.add<TextItem>({ label: "title", text, markdown: md, furniture: false, prov });
      else if (level !== null && level <= 6) {
        sink.add<HeadingItem>({ label: "section_header", level, text, markdown: md, furniture: false, prov });
      } else if (para.list) {
        sink.add<ListItem>({
          label: "list_item",
          text,
          markdown: md,
          ordered: false,
          marker: "-",
          depth: para.listLevel,
          furniture: false,
          prov,
        });
      } else sink.add<TextItem>({ label: "text", text, markdown: md, furniture: false, prov });
    }
    const keep = {
      style: para.style,
      outline: para.outline,
      list: para.list,
      listLevel: para.listLevel,
      inTable: para.inTable,
    };
    para = { ...newParagraph(), ...keep };
  };

  let i = 0;
  const n = source.length;
  let destinationNext = false;
  while (i < n) {
    const ch = source[i];
    if (ch === "{") {
      flushBytes();
      stack.push(state);
      if (stack.length > 1000) throw new DocumentLoadError("The RTF nests groups more than 1000 deep");
      state = { ...state };
      destinationNext = true;
      i++;
      continue;
    }
    if (ch === "}") {
      flushBytes();
      if (state.table === "styles" && tableEntry.name)
        styleNames.set(tableEntry.number, tableEntry.name.replace(/;$/, "").trim());
      if (state.table === "fonts") tableEntry = { number: 0, name: "" };
      state = stack.pop() ?? state;
      destinationNext = false;
      i++;
      continue;
    }
    if (ch === "\\") {
      const next = source[i + 1];
      if (next === "'") {
        const hex = source.slice(i + 2, i + 4);
        i += 4;
        if (skipChars > 0) {
          skipChars--;
          continue;
        }
        const byte = Number.parseInt(hex, 16);
        if (Number.isFinite(byte)) pendingBytes.push(byte);
        continue;
      }
      flushBytes();
      if (next === "*") {
        // An ignorable destination this reader does not know: skipped.
        state.skip = true;
        i += 2;
        continue;
      }
      if (next === "\\" || next === "{" || next === "}") {
        emitText(next);
        i += 2;
        continue;
      }
      if (next === "~") {
        emitText("\u00a0");
        i += 2;
        continue;
      }
      if (next === "_") {
        emitText("\u2011");
        i += 2;
        continue;
      }
      if (next === "\n" || next === "\r") {
        endParagraph();
        i += 2;
        continue;
      }
      const match = /^([a-zA-Z]{1,32})(-?\d{1,10})? ?/.exec(source.slice(i + 1, i + 45));
      if (!match) {
        i += 2;
        continue;
      }
      i += 1 + match[0].length;
      const word = match[1];
      const param = match[2] === undefined ? null : Number(match[2]);
      const atDestination = destinationNext;
      destinationNext = false;
      if (atDestination && SKIPPED_DESTINATIONS.has(word)) {
        if (word === "fonttbl") state.table = "fonts";
        else if (word === "stylesheet") state.table = "styles";
        else state.skip = true;
        continue;
      }
      // Inside a skipped destination or a list marker, nothing changes the paragraph.
      if ((state.skip || state.listText) && word !== "bin") continue;
      switch (word) {
        case "ansicpg":
          if (param) codepage = param;
          break;
        case "f":
          if (state.table === "fonts") tableEntry.number = param ?? 0;
          else state.font = param ?? 0;
          break;
        case "fcharset":
          if (state.table === "fonts" && param !== null && CHARSET_CODEPAGE[param])
            fontCodepage.set(tableEntry.number, CHARSET_CODEPAGE[param]);
          break;
        case "s":
          if (state.table === "styles") tableEntry = { number: param ?? 0, name: "" };
          else para.style = param ?? 0;
          break;
        case "b":
          state.bold = param !== 0;
          break;
        case "i":
          state.italic = param !== 0;
          break;
        case "plain":
          state.bold = false;
          state.italic = false;
          break;
        case "uc":
          state.uc = param ?? 1;
          break;
        case "u": {
          const code = (param ?? 0) < 0 ? (param ?? 0) + 65536 : (param ?? 0);
          emitText(String.fromCharCode(code));
          skipChars = state.uc;
          break;
        }
        case "par":
          endParagraph();
          break;
        case "line":
          emitText("\n");
          break;
        case "tab":
          emitText("\t");
          break;
        case "emdash":
          emitText("—");
          break;
        case "endash":
          emitText("–");
          break;
        case "bullet":
          emitText("•");
          break;
        case "lquote":
          emitText("‘");
          break;
        case "rquote":
          emitText("’");
          break;
        case "ldblquote":
          emitText("“");
          break;
        case "rdblquote":
          emitText("”");
          break;
        case "pard":
          para.style = 0;
          para.outline = null;
          para.list = false;
          para.listLevel = 0;
          para.inTable = false;
          break;
        case "outlinelevel":
          if (state.table === "styles") styleOutline.set(tableEntry.number, param ?? 0);
          else para.outline = param;
          break;
        case "ls":
          if (state.table === null) para.list = true;
          break;
        case "ilvl":
          if (state.table === null) para.listLevel = param ?? 0;
          break;
        case "listtext":
          if (atDestination) {
            state.listText = true;
            para.list = true;
          }
          break;
        case "pntext":
          if (atDestination) {
            state.listText = true;
            para.list = true;
          }
          break;
        case "intbl":
          para.inTable = true;
          break;
        case "cell":
          row.push(cell);
          cell = "";
          break;
        case "row":
          if (cell.trim() !== "") row.push(cell);
          rows.push(row);
          row = [];
          cell = "";
          para.inTable = false;
          break;
        case "bin":
          i += Math.max(0, param ?? 0);
          break;
        default:
          break;
      }
      continue;
    }
    if (ch === "\r" || ch === "\n") {
      i++;
      continue;
    }
    // Plain text up to the next control character.
    let end = i;
    while (
      end < n &&
      source[end] !== "\\" &&
      source[end] !== "{" &&
      source[end] !== "}" &&
      source[end] !== "\r" &&
      source[end] !== "\n"
    )
      end++;
    let chunk = source.slice(i, end);
    if (skipChars > 0) {
      const skipped = Math.min(skipChars, chunk.length);
      chunk = chunk.slice(skipped);
      skipChars -= skipped;
    }
    flushBytes();
    if (state.table === "fonts") {
      // Font names are not text.
    } else emitText(chunk);
    i = end;
  }
  endParagraph();
  flushTable();
}

/** RTF: read directly, or through LibreOffice when the direct reader finds no text in a file that has some. */
export function rtfBackend(registry: BackendRegistry): FormatBackend {
  return {
    name: "rtf",
    mimeTypes: ["application/rtf", "text/rtf", "application/x-rtf"],
    countPages: () => 1,
    async load(input): Promise<DocumentModel> {
      const source =
        input.text ??
        (input.bytes
          ? Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength).toString("latin1")
          : "");
      const sink = new ItemSink();
      readRtf(source, sink);
      if (sink.items.length === 0 && input.bytes && input.bytes.length > 2048 && officeAvailable()) {
        return convertAndLoad(registry, input.bytes, "application/rtf", (backend, bytes, mimeType) =>
          backend.load({ ...input, bytes, text: undefined, mimeType }),
        );
      }
      return {
        version: DOCUMENT_MODEL_VERSION,
        mimeType: "application/rtf",
        backend: "rtf",
        pages: [{ pageNumber: 1, size: null }],
        items: sink.items,
        warnings: [],
      };
    },
  };
}
