import type { DocItem, DocumentModel, TextItem } from "../model.ts";
import { selectedItems, type ViewOptions } from "./selection.ts";
import { chartToMarkdown, tableToHtml, tableToMarkdown } from "./tables.ts";

/**
 * Escapes what would turn plain text into markdown structure at the start of a line (headings, quotes, list
 * markers, fences, tables, setext underlines); inline characters are left alone so ordinary text stays readable.
 */
export function escapeMarkdownText(text: string): string {
  return text
    .split("\n")
    .map((line) =>
      line
        .replace(/^(\s*)([#>+|]|[-*_=]{3,}|```|~~~)/, "$1\\$2")
        .replace(/^(\s*)([-*])(\s)/, "$1\\$2$3")
        .replace(/^(\s*)(\d+)([.)])(\s|$)/, "$1$2\\$3$4"),
    )
    .join("\n");
}

function inline(item: { text: string; markdown?: string }): string {
  return item.markdown ?? escapeMarkdownText(item.text);
}

function fence(text: string): string {
  let marks = "```";
  while (text.includes(marks)) marks += "`";
  return marks;
}

/** A marker CommonMark reads as a list item's: a bullet, or 1–9 digits and `.` or `)`. */
const COMMONMARK_MARKER = /^(?:[-+*]|\d{1,9}[.)])$/;

/**
 * One item as markdown, without its neighbours. `nested` says the item belongs to a run of list items that nests
 * (one of them deeper than the first level): there an item whose printed marker CommonMark does not read as one
 * (`(b)`, `c.`, `iv)`) is written as a bullet item that keeps the marker as its text's start (`- (b) …`), so the
 * nesting renders as a list and a reader searching for `(b)` still finds it.
 */
export function itemToMarkdown(
  item: DocItem,
  options: Pick<ViewOptions, "tableOutputMode">,
  nested = false,
): string {
  switch (item.label) {
    case "title":
      return `# ${inline(item)}`;
    case "section_header":
      return `${"#".repeat(Math.min(Math.max(item.level, 1), 6))} ${inline(item)}`;
    case "list_item": {
      const marker = nested && !COMMONMARK_MARKER.test(item.marker) ? `- ${item.marker}` : item.marker;
      return `${"    ".repeat(item.depth)}${marker} ${inline(item)}`.trimEnd();
    }
    case "code": {
      const marks = fence(item.text);
      return `${marks}${item.language ?? ""}\n${item.text}\n${marks}`;
    }
    case "table":
      return options.tableOutputMode === "markdown" ? tableToMarkdown(item) : tableToHtml(item);
    case "figure":
      // A chart read from a drawing or by a vision model shows its data (an office chart's table follows it).
      if (item.chartData && item.chartData.origin !== "chart_part") {
        const title = item.chartData.title ? `<!-- chart: ${item.chartData.title} -->` : "<!-- chart -->";
        return `${title}\n\n${chartToMarkdown(item.chartData)}`;
      }
      return item.source
        ? `![${item.caption ?? ""}](${item.source})`
        : item.caption
          ? `<!-- image: ${item.caption} -->`
          : "<!-- image -->";
    case "formula":
      return `$$\n${item.text}\n$$`;
    case "signature":
      return "<!-- signature -->";
    default: {
      const text = inline(item as TextItem);
      const depth = (item as TextItem).quoteDepth ?? 0;
      if (depth === 0) return text;
      const prefix = `${"> ".repeat(depth)}`;
      return text
        .split("\n")
        .map((line) => `${prefix}${line}`.trimEnd())
        .join("\n");
    }
  }
}

/** For each item, whether it is a list item in a run of consecutive list items of which one is nested. */
function nestedRuns(items: readonly DocItem[]): boolean[] {
  const nested = items.map(() => false);
  let start = 0;
  for (let at = 0; at <= items.length; at++) {
    if (at < items.length && items[at].label === "list_item") continue;
    const run = items.slice(start, at);
    if (run.some((item) => item.label === "list_item" && item.depth > 0)) nested.fill(true, start, at);
    start = at + 1;
  }
  return nested;
}

/** Items as markdown: blocks separated by a blank line, consecutive list items by a line break. */
export function itemsToMarkdown(
  items: readonly DocItem[],
  options: Pick<ViewOptions, "tableOutputMode">,
): string {
  let out = "";
  let previous: DocItem | null = null;
  const nested = nestedRuns(items);
  for (const [at, item] of items.entries()) {
    const text = itemToMarkdown(item, options, nested[at]);
    if (previous) out += previous.label === "list_item" && item.label === "list_item" ? "\n" : "\n\n";
    out += text;
    previous = item;
  }
  return out;
}

/** The document as markdown: furniture (page headers, footers, numbers) left out. */
export function toMarkdown(doc: DocumentModel, options: ViewOptions): string {
  return itemsToMarkdown(
    selectedItems(doc, options).filter((item) => !item.furniture),
    options,
  );
}
