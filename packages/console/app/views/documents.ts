import {
  type ChunkingStrategy,
  documentRoutes,
  type OcrModel,
  type ParseRequest,
  type UploadedFile,
} from "@svc/contract";
import { changed, field, h, headRow, replace, showError, size, statusLine, when } from "../dom.ts";
import type { Session } from "../session.ts";
import type { View } from "../view.ts";
import { rememberSource } from "./viewer.ts";

/**
 * Uploads a browser File as the multipart body the upload route takes. The SDK's upload streams its body, which
 * browsers send only over HTTP/2; a Blob of the same parts goes through the SDK's transport instead.
 */
export async function uploadFile(session: Session, file: File): Promise<UploadedFile> {
  const boundary = `svc-console-${crypto.randomUUID()}`;
  const name = file.name.replace(/"/g, "%22").replace(/[\r\n]/g, "");
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: ${file.type || "application/octet-stream"}\r\n\r\n`;
  const body = new Blob([head, file, `\r\n--${boundary}--\r\n`]);
  const response = await session.transport.send(documentRoutes.uploadDocumentFile, {
    rawBody: body,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  return (await response.json()) as UploadedFile;
}

/** Documents: upload (drop or pick) or a URL, parse with options, the project's jobs with their progress. */
export const documentsView: View = (session, main) => {
  const status = statusLine();
  const jobs = h("tbody");
  const files = h("tbody");
  const picker = h("input", {
    type: "file",
    name: "document",
    class: "visually-hidden",
    id: "document-file",
    "aria-label": "Choose a document",
  });
  const drop = h(
    "div",
    { class: "drop", tabindex: "0", role: "button", "aria-describedby": "drop-hint" },
    h("strong", {}, "Drop a document here"),
    h("span", { id: "drop-hint" }, " or press Enter to choose a file (PDF, images, office, text)"),
  );
  const url = h("input", { type: "url", name: "url", placeholder: "https://…/document.pdf" });
  const pageRange = h("input", { name: "pageRange", placeholder: "all pages, or 1-3,5" });
  const pageImages = h("input", { type: "checkbox", name: "pageImages", checked: true });
  const ocr = h(
    "select",
    { name: "ocr" },
    h("option", { value: "" }, "Default"),
    ["model01", "model02", "model03"].map((m) => h("option", { value: m }, m)),
  );
  const chunking = h(
    "select",
    { name: "chunking" },
    ["none", "page", "section", "fragment"].map((c) => h("option", { value: c }, c)),
  );
  const dataset = h("select", { name: "dataset" }, h("option", { value: "" }, "None (options here)"));
  /** The project's datasets as choices, keeping the one chosen. */
  const datasetChoices = (datasets: { dataset_id: string; name: string }[]) => {
    const chosen = dataset.value;
    replace(
      dataset,
      h("option", { value: "" }, "None (options here)"),
      datasets.map((d) => h("option", { value: d.dataset_id }, d.name)),
    );
    dataset.value = datasets.some((d) => d.dataset_id === chosen) ? chosen : "";
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function request(source: Pick<ParseRequest, "file_id" | "file_url">): ParseRequest {
    return {
      ...source,
      ...(pageRange.value.trim() ? { page_range: pageRange.value.trim() } : {}),
      parsing_options: {
        chunking_strategy: chunking.value as ChunkingStrategy,
        ...(ocr.value ? { ocr_model: ocr.value as OcrModel } : {}),
      },
      enrichment_options: { include_full_page_image: pageImages.checked },
    };
  }

  async function parse(source: Pick<ParseRequest, "file_id" | "file_url">) {
    // With a dataset, its settings apply and the result is one of its results.
    const job = dataset.value
      ? await session.documents.datasets.parse(dataset.value, {
          ...source,
          ...(pageRange.value.trim() ? { page_range: pageRange.value.trim() } : {}),
        })
      : await session.documents.parse(request(source));
    rememberSource(job.parse_id, source);
    status.classList.remove("error");
    status.textContent = `Parse ${job.parse_id} started`;
    location.hash = `#/parse/${job.parse_id}`;
  }

  async function take(file: File) {
    status.classList.remove("error");
    status.textContent = `Uploading ${file.name}…`;
    try {
      const uploaded = await uploadFile(session, file);
      status.textContent = `Uploaded ${file.name} (${uploaded.file_id}); parsing…`;
      await parse({ file_id: uploaded.file_id });
    } catch (error) {
      showError(status, error);
    }
  }
  picker.addEventListener("change", () => picker.files?.[0] && take(picker.files[0]));
  drop.addEventListener("click", () => picker.click());
  drop.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      picker.click();
    }
  });
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    const file = event.dataTransfer?.files?.[0];
    if (file) take(file);
  });
  const urlForm = h(
    "form",
    { class: "row" },
    field("Or a URL", url),
    h("button", { type: "submit" }, "Parse URL"),
  );
  urlForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await parse({ file_url: url.value.trim() });
    } catch (error) {
      showError(status, error);
    }
  });

  async function refresh() {
    try {
      const page = await session.documents.listJobs({ limit: 50 });
      if (changed(jobs, page.items))
        replace(
          jobs,
          page.items.length === 0 ? h("tr", {}, h("td", { colspan: 4 }, "No parse jobs yet.")) : null,
          page.items.map((job) =>
            h(
              "tr",
              {},
              h("td", {}, h("a", { href: `#/parse/${job.parse_id}` }, job.parse_id)),
              h("td", {}, h("span", { class: `badge ${job.status}` }, job.status)),
              h(
                "td",
                {},
                h("progress", {
                  max: job.total_pages || 1,
                  value: job.status === "successful" ? job.total_pages || 1 : job.parsed_pages_count,
                  "aria-label": "Pages parsed",
                }),
                ` ${job.parsed_pages_count}/${job.total_pages ?? "?"}`,
              ),
              h("td", {}, when(job.created_at)),
            ),
          ),
        );
      const uploaded = await session.documents.files.list({ limit: 50 });
      if (changed(files, uploaded.items))
        replace(
          files,
          uploaded.items.map((f) =>
            h(
              "tr",
              {},
              h("td", {}, f.file_name ?? f.file_id),
              h("td", {}, size(f.file_size ?? 0)),
              h(
                "td",
                {},
                h(
                  "button",
                  {
                    type: "button",
                    onclick: () => parse({ file_id: f.file_id }).catch((e) => showError(status, e)),
                  },
                  "Parse",
                ),
              ),
            ),
          ),
        );
    } catch (error) {
      showError(status, error);
    }
    if (!stopped) timer = setTimeout(refresh, 2500);
  }

  replace(
    main,
    h("h1", {}, "Documents"),
    h(
      "section",
      { class: "card", "aria-labelledby": "new-parse" },
      h("h2", { id: "new-parse" }, "Parse a document"),
      h(
        "div",
        { class: "row" },
        field("Pages", pageRange),
        field("Chunks", chunking),
        field("OCR model", ocr),
        field("Dataset", dataset, "A dataset's own settings replace the options here"),
      ),
      h("label", { class: "check" }, pageImages, " Page images (for the viewer's boxes)"),
      picker,
      drop,
      urlForm,
      status,
    ),
    h(
      "div",
      { class: "split" },
      h(
        "section",
        { "aria-labelledby": "jobs-title" },
        h("h2", { id: "jobs-title" }, "Parse jobs"),
        h("table", {}, headRow(["Job", "Status", "Progress", "Created"]), jobs),
      ),
      h(
        "section",
        { "aria-labelledby": "files-title" },
        h("h2", { id: "files-title" }, "Files"),
        h("table", {}, headRow(["Name", "Size", ""]), files),
        datasetsPanel(session, datasetChoices),
      ),
    ),
  );
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};

/** Datasets and the results parsed with them. */
function datasetsPanel(
  session: Session,
  listed: (datasets: { dataset_id: string; name: string }[]) => void,
): HTMLElement {
  const list = h("ul");
  const status = statusLine();
  const name = h("input", { name: "datasetName", placeholder: "invoices" });
  const form = h(
    "form",
    { class: "row" },
    field("New dataset", name),
    h("button", { type: "submit" }, "Create"),
  );
  async function refresh() {
    try {
      const page = await session.documents.datasets.list();
      listed(page.items);
      replace(
        list,
        page.items.map((d) =>
          h(
            "li",
            {},
            h("strong", {}, d.name),
            ` ${d.dataset_id} `,
            h(
              "button",
              {
                type: "button",
                "aria-label": `Results of ${d.name}`,
                onclick: async () => {
                  try {
                    const data = await session.documents.datasets.data(d.dataset_id);
                    replace(
                      list.querySelector(`[data-results="${d.dataset_id}"]`) ?? list,
                      data.items.length === 0 ? h("p", {}, "No results yet.") : null,
                      data.items.map((r) =>
                        h("div", {}, h("a", { href: `#/parse/${r.parse_id}` }, r.parse_id), ` ${r.status}`),
                      ),
                    );
                  } catch (error) {
                    showError(status, error);
                  }
                },
              },
              "Results",
            ),
            h("div", { "data-results": d.dataset_id }),
          ),
        ),
      );
    } catch (error) {
      showError(status, error);
    }
  }
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await session.documents.datasets.create({ name: name.value.trim() });
      name.value = "";
      await refresh();
    } catch (error) {
      showError(status, error);
    }
  });
  refresh();
  return h(
    "section",
    { "aria-labelledby": "datasets-title" },
    h("h2", { id: "datasets-title" }, "Datasets"),
    form,
    list,
    status,
  );
}
