import type { FragmentContent, Page, PageFragment } from "@svc/contract";
import type { DocItem, DocumentModel } from "../model.ts";
import { itemToMarkdown } from "./markdown.ts";
import { fragmentType, itemPage, selectedItems, selectedPages, type ViewOptions } from "./selection.ts";
import { chartToMarkdown, tableToHtml, tableToMarkdown } from "./tables.ts";

/** Declarative formats have no geometry: their boxes are reported as null, and table cells' boxes as zeros. */
const NO_BOX = { x1: 0, y1: 0, x2: 0, y2: 0 };

function contentOf(item: DocItem, options: ViewOptions): FragmentContent {
  switch (item.label) {
    case "section_header":
      return { level: item.level, content: item.markdown ?? item.text };
    case "table": {
      const html = tableToHtml(item);
      const markdown = tableToMarkdown(item);
      return {
        content: options.tableOutputMode === "markdown" ? markdown : html,
        html,
        markdown,
        cells: item.cells.map((cell) => ({ text: cell.text, bounding_box: cell.bbox ?? NO_BOX })),
        summary: item.summary ?? null,
      };
    }
    case "figure":
      if (item.chartData) {
        const data = item.chartData;
        return {
          content: chartToMarkdown(data),
          summary: item.summary ?? null,
          chart: {
            chart_type: data.chartType,
            title: data.title,
            categories: data.categories,
            series: data.series.map((series) => ({ name: series.name, values: series.values })),
            source: data.origin,
          },
        };
      }
      // With include_images the figure's image comes as a markdown image with a data: URI.
      return {
        content: item.source ? `![${item.caption ?? ""}](${item.source})` : (item.caption ?? ""),
        summary: item.summary ?? null,
      };
    case "code":
    case "formula":
      return { content: item.text };
    case "list_item":
    case "title":
      return { content: item.markdown ?? item.text };
    default:
      return { content: itemToMarkdown(item, options) };
  }
}

/** The pages view: each kept page with its fragments in reading order (numbered from 0 on each page). */
export function toPages(doc: DocumentModel, options: ViewOptions): Page[] {
  const byPage = new Map<number, DocItem[]>();
  for (const item of selectedItems(doc, options)) {
    const page = itemPage(item);
    byPage.set(page, [...(byPage.get(page) ?? []), item]);
  }
  const modelPages = new Map(doc.pages.map((page) => [page.pageNumber, page]));
  return selectedPages(doc, options).map((pageNumber) => {
    const page = modelPages.get(pageNumber);
    const size = page?.size ?? null;
    const fragments: PageFragment[] = (byPage.get(pageNumber) ?? []).map((item, index) => ({
      fragment_type: fragmentType(item),
      content: contentOf(item, options),
      reading_order: index,
      bbox: item.prov[0]?.bbox ?? null,
    }));
    // Whole points, as the platform's clients read them (its Python SDK refuses 595.2); boxes keep fractions.
    const width = size ? Math.round(size.width) : 0;
    const height = size ? Math.round(size.height) : 0;
    return {
      page_number: pageNumber,
      dimensions: size ? [width, height] : null,
      page_dimensions: size ? { width, height } : null,
      page_fragments: fragments,
      ...(page?.image ? { page_image: page.image.pngBase64 } : {}),
    };
  });
}
