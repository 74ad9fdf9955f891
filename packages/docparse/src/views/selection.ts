import type { FragmentType, TableOutputMode } from "@svc/contract";
import type { DocItem, DocumentModel } from "../model.ts";

/** What the views show: the table rendering, the fragment types left out, the pages kept. */
export interface ViewOptions {
  tableOutputMode: TableOutputMode;
  /** Fragment types left out of every view (parsing_options.ignore_sections). */
  ignore: ReadonlySet<FragmentType>;
  /** Pages kept (page_range); null keeps every page. */
  pages: ReadonlySet<number> | null;
}

/** The API's fragment type of an item: code blocks are reported as text, figures with chart data as charts. */
export function fragmentType(item: DocItem): FragmentType {
  if (item.label === "figure" && item.chartData) return "chart";
  return item.label === "code" ? "text" : item.label;
}

/** The page an item starts on. */
export function itemPage(item: DocItem): number {
  return item.prov[0]?.page ?? 1;
}

/** Page numbers the views show, in order. */
export function selectedPages(doc: DocumentModel, options: ViewOptions): number[] {
  return doc.pages
    .map((page) => page.pageNumber)
    .filter((n) => options.pages === null || options.pages.has(n));
}

/** Items on the kept pages whose type is not ignored, in reading order. */
export function selectedItems(doc: DocumentModel, options: ViewOptions): DocItem[] {
  return doc.items.filter(
    (item) =>
      !options.ignore.has(fragmentType(item)) &&
      (options.pages === null || options.pages.has(itemPage(item))),
  );
}
