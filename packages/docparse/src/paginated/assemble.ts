import {
  type Box,
  type CodeItem,
  DOCUMENT_MODEL_VERSION,
  type DocumentModel,
  type FigureItem,
  type HeadingItem,
  ItemSink,
  type ListItem,
  type MergedTableModel,
  type ModelPage,
  type TableItem,
  type TextItem,
  type TextLine,
} from "../model.ts";
import { mergeContinuedTables } from "../tables/merge.ts";
import { tableToHtml } from "../views/tables.ts";
import { artworkHeadings } from "./artwork-headings.ts";
import { type Block, blockText, spelledBlockText } from "./blocks.ts";
import { spelledWords } from "./capital-hyphen.ts";
import { drawnBoxAround } from "./drawn-box.ts";
import { notesAtFoot } from "./footnotes.ts";
import {
  detectFurniture,
  edgeBand,
  edgeBlocks,
  type FurnitureCandidate,
  type FurnitureKind,
  ruledBothSides,
  textBodySize,
} from "./furniture.ts";
import { box, type DetectedTable } from "./geometry.ts";
import { joinHangulBreaks } from "./hangul-wrap.ts";
import { type LeveledHeading, separateHeadingLevels } from "./heading-levels.ts";
import { type BlockLabel, documentStyle, labelBlock, numberedHeading, withoutMarker } from "./labels.ts";
import type { PageLayout } from "./layout.ts";
import { opensNote } from "./note-marker.ts";
import { enumeratorKind } from "./numbered-items.ts";

export interface AssembleOptions {
  mimeType: string;
  backend: string;
  /** Every page of the document with its size, parsed or not. */
  pages: ModelPage[];
  /** Plain blocks only: no headings, lists, captions or furniture (parsing_options.disable_layout_detection). */
  plain: boolean;
  /** Join tables continued on the next page (parsing_options.table_merging). */
  mergeTables: boolean;
  warnings: string[];
}

interface Labeled {
  block: Block;
  label: BlockLabel;
  furniture: FurnitureKind | null;
}

/**
 * Section headers' levels set against each other (heading-levels.ts); `fromFirstPage` says whether the first
 * labelled block opens the document.
 */
function setHeadingLevels(labeled: Labeled[], fromFirstPage: boolean): void {
  const headings = new Map<Labeled, LeveledHeading>();
  for (const entry of labeled) {
    if (entry.label.label !== "section_header") continue;
    headings.set(entry, {
      level: entry.label.level,
      size: entry.block.lines[0].fontSize,
      bold: entry.block.lines.every((line) => line.bold),
      numbered: numberedHeading(blockText(entry.block)),
    });
  }
  if (headings.size === 0) return;
  separateHeadingLevels([...headings.values()], fromFirstPage ? headings.get(labeled[0]) : undefined);
  for (const [entry, heading] of headings) entry.label = { label: "section_header", level: heading.level };
}

/** Turns laid-out pages into the document model: labels, furniture, list depth, captions, items in order. */
export function assembleDocument(detected: readonly PageLayout[], options: AssembleOptions): DocumentModel {
  const allBlocks = detected.flatMap((l) => l.entries.flatMap((e) => (e.kind === "block" ? [e.block] : [])));
  const tableTexts = detected.flatMap((l) =>
    l.entries.flatMap((e) => (e.kind === "table" ? e.table.cells.map((cell) => cell.text) : [])),
  );
  const spelled = spelledWords([
    ...allBlocks.flatMap((b) => b.lines.map((line) => line.text)),
    ...tableTexts,
  ]);
  const layouts = detected.map((layout) => withCellWordsJoined(layout, spelled));
  const first = layouts[0];
  const firstBlocks = first?.entries.flatMap((e) => (e.kind === "block" ? [e.block] : [])) ?? [];
  const layerBody = textBodySize(layouts.flatMap((l) => l.page.runs));
  const style = documentStyle(allBlocks, first?.page.pageNumber === 1 ? firstBlocks : [], layerBody);

  // Labels per block, then furniture over the whole document.
  const labeled = new Map<Block, Labeled>();
  let titleTaken = false;
  const candidates: FurnitureCandidate[] = [];
  const candidateBlocks: Block[] = [];
  for (const layout of layouts) {
    const size = { width: layout.page.width, height: layout.page.height };
    const blocks = layout.entries.flatMap((e) => (e.kind === "block" ? [e.block] : []));
    const edges = edgeBlocks(
      blocks.map((b) => b.box),
      blocks.map((b) => b.lines[0].fontSize),
      size.height,
    );
    const pageLabels = new Map<Block, BlockLabel>();
    for (const block of blocks) {
      // A block of slanted lines is a stamp across the page (backdrop-text.ts `stampRuns`): text, never a heading.
      const stamp = block.lines.every((line) => line.runs.every((run) => run.slanted));
      const label: BlockLabel =
        options.plain || stamp
          ? { label: "text" }
          : labelBlock(block, size, style, {
              firstPage: layout.page.pageNumber === 1,
              titleTaken,
              pageBlocks: blocks,
            });
      if (label.label === "title") titleTaken = true;
      pageLabels.set(block, label);
    }
    // A logo's lettering OCR misread is no heading beside the page's own (artwork-headings.ts).
    for (const block of artworkHeadings(pageLabels, layout.page)) pageLabels.set(block, { label: "text" });
    for (const [index, block] of blocks.entries()) {
      const label = pageLabels.get(block) as BlockLabel;
      labeled.set(block, { block, label, furniture: null });
      if (!options.plain) {
        const edge = edges[index];
        candidates.push({
          page: layout.page.pageNumber,
          pageSize: size,
          box: block.box,
          text: blockText(block),
          fontSize: block.lines[0].fontSize,
          heading: label.label === "section_header" || label.label === "title",
          pageNumber: label.label === "page_number",
          edge,
          sideways: block.lines.every((line) => line.vertical),
          boxed: ruledBothSides(block.box, layout.page.rules, block.lines[0].fontSize * 1.5),
          drawnBox:
            edge !== null || edgeBand(block.box, size.height) !== null
              ? drawnBoxAround(block.box, layout.page.rules, layout.page.rects)
              : null,
          caption: label.label === "figure_caption" || label.label === "table_caption",
          lines: block.lines.map((line) => line.text),
          noteMarked: opensNote(block.lines[0]),
        });
        candidateBlocks.push(block);
      }
    }
  }
  setHeadingLevels([...labeled.values()], layouts[0]?.page.pageNumber === 1);
  const pageCount = options.pages.length;
  const furnitureBody = Math.max(style.bodySize, layerBody);
  const furniture = detectFurniture(candidates, furnitureBody, pageCount);
  for (const [index, kind] of furniture) {
    const entry = labeled.get(candidateBlocks[index]);
    if (entry) entry.furniture = kind;
  }
  // Footnotes at a page's foot are read after the page's body (see footnotes.ts).
  const notes = new Set([...notesAtFoot(candidates, (i) => furniture.has(i))].map((i) => candidateBlocks[i]));
  const atFoot = (entry: PageLayout["entries"][number]) => entry.kind === "block" && notes.has(entry.block);
  const isFurniture = (entry: PageLayout["entries"][number]) =>
    entry.kind === "block" && Boolean(labeled.get(entry.block)?.furniture);

  const sink = new ItemSink();
  const tableItems = new Map<DetectedTable, TableItem>();
  const prov = (page: number, b: Box) => [{ page, bbox: box.round(b), charSpan: null }];
  for (const layout of layouts) {
    const page = layout.page.pageNumber;
    const listIndents: number[] = [];
    let lastListBox: Box | null = null;
    // The last list item's enumerator kind and where its first line starts.
    let lastItem: { kind: string | null; x: number } | null = null;
    let lastTable: TableItem | null = null;
    // The page's notes after its body, before the running foot and page number that close it.
    const body = layout.entries.filter((e) => !atFoot(e));
    const fromEnd = [...body].reverse().findIndex((e) => !isFurniture(e));
    const closing = fromEnd === -1 ? 0 : body.length - fromEnd;
    const entries = [...body.slice(0, closing), ...layout.entries.filter(atFoot), ...body.slice(closing)];
    for (const entry of entries) {
      if (entry.kind === "table") {
        const t = entry.table;
        lastTable = sink.add<TableItem>({
          label: "table",
          furniture: false,
          prov: prov(page, t.box),
          numRows: t.numRows,
          numCols: t.numCols,
          cells: t.cells.map((cell) => ({
            row: cell.row,
            col: cell.col,
            rowSpan: cell.rowSpan,
            colSpan: cell.colSpan,
            text: cell.text,
            columnHeader: cell.columnHeader,
            rowHeader: cell.rowHeader,
            bbox: box.round(cell.box),
          })),
          caption: null,
        });
        tableItems.set(t, lastTable);
        listIndents.length = 0;
        continue;
      }
      if (entry.kind === "figure") {
        sink.add<FigureItem>({
          label: "figure",
          furniture: false,
          prov: prov(page, entry.box),
          caption: null,
          source: entry.image ?? null,
        });
        listIndents.length = 0;
        continue;
      }
      if (entry.kind === "barcode" || entry.kind === "signature") {
        const text = entry.kind === "barcode" ? entry.text : "";
        sink.add<TextItem>({ label: entry.kind, furniture: false, prov: prov(page, entry.box), text });
        continue;
      }
      const { block, label, furniture } = labeled.get(entry.block) as Labeled;
      const text = spelledBlockText(block, spelled);
      const base = { furniture: furniture !== null, prov: prov(page, block.box) };
      if (furniture) {
        sink.add<TextItem>({ ...base, label: furniture, text });
        continue;
      }
      switch (label.label) {
        case "section_header":
          sink.add<HeadingItem>({ ...base, label: "section_header", level: label.level, text });
          break;
        case "list_item": {
          // Depth from indentation among the list items that came just before, in the same column: an item
          // above the one before it or right of it (the list going on in the next column) starts afresh.
          const x = block.box.x1;
          if (lastListBox && (block.box.y1 < lastListBox.y1 || x > lastListBox.x2)) listIndents.length = 0;
          // The next of the items before it, numbered alike from where their numbers stand, is at their depth
          // whatever its later lines do: items whose second lines return to the margin, left of their numbers
          // (an exam's notes), make no deeper item of a last one of a single line.
          const kind = enumeratorKind(text);
          const sibling =
            lastItem !== null &&
            listIndents.length > 0 &&
            kind !== null &&
            kind === lastItem.kind &&
            Math.abs(block.lines[0].box.x1 - lastItem.x) <= 2;
          lastListBox = block.box;
          lastItem = { kind, x: block.lines[0].box.x1 };
          if (!sibling) {
            while (listIndents.length > 0 && x < listIndents[listIndents.length - 1] - 2) listIndents.pop();
            if (listIndents.length === 0 || x > listIndents[listIndents.length - 1] + 6) listIndents.push(x);
          }
          sink.add<ListItem>({
            ...base,
            label: "list_item",
            text: withoutMarker(text),
            ordered: label.ordered,
            marker: label.marker,
            depth: listIndents.length - 1,
          });
          continue;
        }
        case "key_value_region":
          // One pair per line, as the block set them.
          sink.add<TextItem>({
            ...base,
            label: "key_value_region",
            text: block.lines.map((line) => line.text).join("\n"),
          });
          break;
        case "code":
          sink.add<CodeItem>({
            ...base,
            label: "code",
            text: block.lines.map((line) => line.text).join("\n"),
            language: null,
          });
          break;
        case "table_caption":
        case "figure_caption": {
          sink.add<TextItem>({ ...base, label: label.label, text });
          if (label.label === "table_caption" && lastTable && lastTable.caption === null)
            lastTable.caption = text;
          break;
        }
        default:
          // A number its text took for a page number but furniture detection did not (a chart's axis tick) is text.
          sink.add<TextItem>({
            ...base,
            label: label.label === "page_number" ? "text" : label.label,
            text,
            lines: lineBoxes(block),
          });
      }
      listIndents.length = 0;
    }
  }
  const mergedTables = options.mergeTables ? mergedTableGroups(layouts, tableItems) : undefined;
  const struckPages = layouts.filter((l) => l.droppedStruck > 0).map((l) => l.page.pageNumber);
  return {
    ...(struckPages.length > 0 ? { struckPages } : {}),
    ...(mergedTables ? { mergedTables } : {}),
    version: DOCUMENT_MODEL_VERSION,
    mimeType: options.mimeType,
    backend: options.backend,
    pages: options.pages,
    items: sink.items,
    warnings: [...options.warnings, ...layouts.flatMap((l) => l.page.warnings)],
  };
}

/** A page's tables with the Korean words their cells break at a line end joined where the document spells them. */
function withCellWordsJoined(layout: PageLayout, spelled: ReadonlySet<string>): PageLayout {
  if (!layout.entries.some((e) => e.kind === "table" && e.table.cells.some((cell) => cell.hangulBreaks)))
    return layout;
  const entries = layout.entries.map((entry) => {
    if (entry.kind !== "table") return entry;
    // The break places are spent once joined: the joined text's offsets are others.
    const cells = entry.table.cells.map(({ hangulBreaks, ...cell }) =>
      hangulBreaks ? { ...cell, text: joinHangulBreaks(cell.text, hangulBreaks, spelled) } : cell,
    );
    return { ...entry, table: { ...entry.table, cells } };
  });
  return { ...layout, entries };
}

/** Tables continued over pages, joined, with the ids of the items they join. */
function mergedTableGroups(
  layouts: readonly PageLayout[],
  items: Map<DetectedTable, TableItem>,
): MergedTableModel[] {
  const parts = layouts.flatMap((layout) =>
    layout.entries.flatMap((entry) =>
      entry.kind === "table"
        ? [{ page: layout.page.pageNumber, table: entry.table, pageHeight: layout.page.height }]
        : [],
    ),
  );
  return mergeContinuedTables(parts).map((group) => {
    const { numRows, numCols, cells } = group.table;
    return {
      itemIds: group.members.map((index) => items.get(parts[index].table)?.id ?? ""),
      html: tableToHtml({ numRows, numCols, cells: cells.map((cell) => ({ ...cell, bbox: cell.box })) }),
      pages: group.pages,
      numCols: group.numCols,
    };
  });
}

/** A text block's lines with their boxes (TextItem.lines). */
function lineBoxes(block: Block): TextLine[] {
  return block.lines.map((line) => ({ text: line.text, bbox: box.round(line.box) }));
}
