import type { BoundingBox, Citation, Page, PageFragment, ParseRequest, ParseResult } from "@svc/contract";
import { parseResultMarkdown } from "@svc/sdk";
import { field, h, replace, showError, statusLine } from "../dom.ts";
import type { Session } from "../session.ts";
import type { View } from "../view.ts";

const DEFAULT_SCHEMA = JSON.stringify(
  {
    type: "object",
    properties: {
      title: { type: "string", description: "The document's title" },
    },
  },
  null,
  2,
);

/** Remembers which source a parse job read, so the viewer can run an extraction over the same document. */
export function rememberSource(parseId: string, source: Pick<ParseRequest, "file_id" | "file_url">): void {
  sessionStorage.setItem(`svc.source.${parseId}`, JSON.stringify(source));
}

function sourceOf(parseId: string): Pick<ParseRequest, "file_id" | "file_url"> | null {
  const text = sessionStorage.getItem(`svc.source.${parseId}`);
  return text ? JSON.parse(text) : null;
}

/** Text of a fragment, whatever its kind. */
function fragmentText(fragment: PageFragment): string {
  const content = fragment.content as { content?: string; markdown?: string | null };
  return content.markdown ?? content.content ?? "";
}

/** A page's size in points: `page_dimensions`, else `dimensions`, else US Letter. */
function pageSize(page: Page): { width: number; height: number } {
  if (page.page_dimensions) return page.page_dimensions;
  if (page.dimensions) return { width: page.dimensions[0], height: page.dimensions[1] };
  return { width: 612, height: 792 };
}

/** A box positioned in percent of its page, so it follows the image at any width. */
function boxElement(
  box: BoundingBox,
  page: { width: number; height: number },
  props: Record<string, unknown>,
) {
  const pct = (v: number, of: number) => `${((v / of) * 100).toFixed(3)}%`;
  const element = h("div", { ...props });
  element.style.left = pct(box.x1, page.width);
  element.style.top = pct(box.y1, page.height);
  element.style.width = pct(box.x2 - box.x1, page.width);
  element.style.height = pct(box.y2 - box.y1, page.height);
  return element;
}

/**
 * A parse job: progress while it runs; then each page's image with every fragment's box over it, the fragment
 * list beside (hovering or focusing one highlights both), tabs for markdown, JSON and tables, and extraction
 * with a schema editor whose cited values are boxed on their pages.
 */
export const viewerView: View = (session, main, parseId) => {
  if (!parseId) {
    location.hash = "#/documents";
    return undefined;
  }
  const status = statusLine();
  const progress = h("progress", { max: 1, value: 0, "aria-label": "Parse progress" });
  const body = h("div");
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  replace(
    main,
    h("h1", {}, "Parse ", h("code", {}, parseId)),
    h("div", { class: "row" }, progress, status),
    body,
  );

  async function poll() {
    try {
      const result = await session.documents.get(parseId as string);
      progress.max = result.total_pages || 1;
      progress.value = result.status === "successful" ? progress.max : result.parsed_pages_count;
      status.textContent = `${result.status}: ${result.parsed_pages_count}/${result.total_pages ?? "?"} pages`;
      if (result.status === "successful") return render(session, body, parseId as string, result);
      if (result.status === "failure")
        return showError(status, new Error(result.error ?? "the parse failed"));
    } catch (error) {
      showError(status, error);
    }
    if (!stopped) timer = setTimeout(poll, 800);
  }
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};

function render(session: Session, host: HTMLElement, parseId: string, result: ParseResult) {
  const pages = result.pages ?? [];
  const citations = (result.structured_data ?? []).flatMap((entry) => entry.citations ?? []);
  const pagesView = h("div", { class: "pages" });
  const fragmentsList = h("ol", { class: "fragments", "aria-label": "Fragments" });
  const boxes = new Map<string, HTMLElement[]>();
  const highlight = (key: string, on: boolean) => {
    for (const element of boxes.get(key) ?? []) element.classList.toggle("active", on);
  };
  const link = (element: HTMLElement, key: string) => {
    boxes.set(key, [...(boxes.get(key) ?? []), element]);
    for (const [event, on] of [
      ["mouseenter", true],
      ["mouseleave", false],
      ["focus", true],
      ["blur", false],
    ] as const)
      element.addEventListener(event, () => highlight(key, on));
  };
  for (const page of pages) {
    const size = pageSize(page);
    const sheet = h("figure", { class: "page", "data-page": page.page_number });
    sheet.style.aspectRatio = `${size.width} / ${size.height}`;
    if (page.page_image)
      sheet.append(
        h("img", { src: `data:image/png;base64,${page.page_image}`, alt: `Page ${page.page_number}` }),
      );
    else
      sheet.append(
        h(
          "div",
          { class: "no-image" },
          `Page ${page.page_number} (no page image: parse with page images on)`,
        ),
      );
    (page.page_fragments ?? []).forEach((fragment, index) => {
      const key = `${page.page_number}-${index}`;
      const text = fragmentText(fragment);
      const item = h(
        "li",
        { tabindex: "0", "data-fragment": key },
        h("span", { class: "kind" }, `p${page.page_number} ${fragment.fragment_type}`),
        h("span", {}, text.length > 240 ? `${text.slice(0, 240)}…` : text),
      );
      link(item, key);
      fragmentsList.append(item);
      if (fragment.bbox) {
        const box = boxElement(fragment.bbox, size, {
          class: `box ${fragment.fragment_type}`,
          "data-fragment": key,
          title: `${fragment.fragment_type}: ${text.slice(0, 80)}`,
        });
        link(box, key);
        box.addEventListener("click", () => item.scrollIntoView({ block: "nearest" }));
        sheet.append(box);
      }
    });
    citations
      .filter((c: Citation) => c.page_number === page.page_number && c.bbox)
      .forEach((citation, index) => {
        const key = `cite-${page.page_number}-${index}`;
        const box = boxElement(citation.bbox as BoundingBox, size, {
          class: "box citation",
          "data-citation": citation.field,
          title: `${citation.field}: ${citation.text}`,
        });
        link(box, key);
        sheet.append(box);
        boxes.set(`field:${citation.field}`, [...(boxes.get(`field:${citation.field}`) ?? []), box]);
      });
    sheetCaption(sheet, page);
    pagesView.append(sheet);
  }

  const tabs = tabbed([
    ["Fragments", fragmentsList],
    ["Markdown", h("pre", { class: "markdown", tabindex: "0" }, parseResultMarkdown(result))],
    [
      "JSON",
      h(
        "pre",
        { class: "json", tabindex: "0" },
        JSON.stringify(
          {
            ...result,
            pages: pages.map((p) => ({ ...p, page_image: p.page_image ? "(base64 PNG)" : p.page_image })),
          },
          null,
          2,
        ),
      ),
    ],
    ["Tables", tablesOf(pages)],
    ["Extraction", extractionPanel(session, parseId, result, (field, on) => highlight(`field:${field}`, on))],
  ]);
  replace(
    host,
    h(
      "div",
      { class: "viewer" },
      h("section", { "aria-label": "Pages" }, pagesView),
      h("section", { class: "side", "aria-label": "Result" }, tabs),
    ),
  );
  if (citations.length) (tabs.querySelector('[data-tab="Extraction"]') as HTMLElement | null)?.click();
}

function sheetCaption(sheet: HTMLElement, page: Page) {
  sheet.append(
    h("figcaption", {}, `Page ${page.page_number} · ${(page.page_fragments ?? []).length} fragments`),
  );
}

function tablesOf(pages: Page[]): HTMLElement {
  const tables = pages.flatMap((page) =>
    (page.page_fragments ?? [])
      .filter((f) => f.fragment_type === "table")
      .map((f) =>
        h("div", { class: "table" }, h("h3", {}, `Page ${page.page_number}`), h("pre", {}, fragmentText(f))),
      ),
  );
  return h("div", {}, tables.length ? tables : h("p", {}, "No tables."));
}

/** Accessible tabs: arrow keys move between them, each panel is labelled by its tab. */
function tabbed(panels: [string, HTMLElement][]): HTMLElement {
  const list = h("div", { role: "tablist", "aria-label": "Result views" });
  const container = h("div");
  const buttons: HTMLButtonElement[] = [];
  const select = (index: number) => {
    buttons.forEach((button, i) => {
      button.setAttribute("aria-selected", String(i === index));
      button.tabIndex = i === index ? 0 : -1;
      panels[i][1].parentElement?.toggleAttribute("hidden", i !== index);
    });
  };
  panels.forEach(([label, panel], index) => {
    const id = `tab-${label.toLowerCase()}`;
    const button = h(
      "button",
      { type: "button", role: "tab", id, "data-tab": label, "aria-controls": `${id}-panel` },
      label,
    );
    button.addEventListener("click", () => select(index));
    button.addEventListener("keydown", (event) => {
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      const next = (index + step + panels.length) % panels.length;
      select(next);
      buttons[next].focus();
    });
    buttons.push(button);
    list.append(button);
    container.append(
      h("div", { role: "tabpanel", id: `${id}-panel`, "aria-labelledby": id, class: "panel" }, panel),
    );
  });
  select(0);
  return h("div", { class: "tabs" }, list, container);
}

/** A schema editor that runs an extraction over the same document; the values and their citations after it. */
function extractionPanel(
  session: Session,
  parseId: string,
  result: ParseResult,
  highlight: (field: string, on: boolean) => void,
) {
  const schema = h("textarea", { name: "schema", rows: 10, spellcheck: "false" });
  schema.value = DEFAULT_SCHEMA;
  const schemaName = h("input", { name: "schemaName", value: "console" });
  const fileId = h("input", {
    name: "fileId",
    placeholder: "file_…",
    value: sourceOf(parseId)?.file_id ?? "",
  });
  const status = statusLine();
  const form = h(
    "form",
    {},
    field("Schema name", schemaName),
    field("JSON schema", schema),
    field("File", fileId, "The uploaded file to read (filled in for parses started here)"),
    h("button", { type: "submit" }, "Extract"),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let jsonSchema: unknown;
    try {
      jsonSchema = JSON.parse(schema.value);
    } catch (error) {
      return showError(status, new Error(`the schema is not JSON: ${(error as Error).message}`));
    }
    try {
      const source = fileId.value.trim() ? { file_id: fileId.value.trim() } : sourceOf(parseId);
      if (!source) throw new Error("name the file to read");
      const job = await session.documents.parse({
        ...source,
        enrichment_options: { include_full_page_image: true },
        structured_extraction_options: [
          {
            schema_name: schemaName.value.trim() || "console",
            json_schema: jsonSchema as Record<string, unknown>,
            provide_citations: true,
          },
        ],
      });
      rememberSource(job.parse_id, source);
      location.hash = `#/parse/${job.parse_id}`;
    } catch (error) {
      showError(status, error);
    }
  });
  const values = (result.structured_data ?? []).map((entry) =>
    h(
      "div",
      { class: "extracted" },
      h("h3", {}, entry.schema_name),
      h("pre", { tabindex: "0" }, JSON.stringify(entry.data, null, 2)),
      h(
        "ul",
        { "aria-label": "Citations" },
        (entry.citations ?? []).map((c) => {
          const item = h(
            "li",
            { tabindex: "0", "data-citation": c.field },
            h("code", {}, c.field),
            ` p${c.page_number}: ${c.text}`,
          );
          for (const [event, on] of [
            ["mouseenter", true],
            ["mouseleave", false],
            ["focus", true],
            ["blur", false],
          ] as const)
            item.addEventListener(event, () => highlight(c.field, on));
          return item;
        }),
      ),
    ),
  );
  return h("div", {}, values, form);
}
