import type { Chunk, ChunkingStrategy } from "@svc/contract";
import type { DocItem, DocumentModel } from "../model.ts";
import { itemsToMarkdown, itemToMarkdown } from "./markdown.ts";
import { itemPage, selectedItems, selectedPages, type ViewOptions } from "./selection.ts";

/**
 * The chunks view, by chunking_strategy: `none` one chunk of the whole markdown; `page` one per page; `section`
 * one per title or section header with what follows it; `fragment` one per item. A chunk's page_number is the
 * page it starts on (the first kept page for `none`, 0 when the document has no page at all). Furniture is left
 * out, as in the markdown view.
 */
export function toChunks(doc: DocumentModel, strategy: ChunkingStrategy, options: ViewOptions): Chunk[] {
  const pages = selectedPages(doc, options);
  const items = selectedItems(doc, options).filter((item) => !item.furniture);
  switch (strategy) {
    case "none":
      return [{ page_number: pages[0] ?? 0, content: itemsToMarkdown(items, options) }];
    case "page":
      return pages.map((page) => ({
        page_number: page,
        content: itemsToMarkdown(
          items.filter((item) => itemPage(item) === page),
          options,
        ),
      }));
    case "section": {
      const sections: DocItem[][] = [];
      for (const item of items) {
        const starts = item.label === "title" || item.label === "section_header";
        if (starts || sections.length === 0) sections.push([]);
        sections[sections.length - 1].push(item);
      }
      return sections.map((section) => ({
        page_number: itemPage(section[0]),
        content: itemsToMarkdown(section, options),
      }));
    }
    case "fragment":
      return items.map((item) => ({ page_number: itemPage(item), content: itemToMarkdown(item, options) }));
  }
}
