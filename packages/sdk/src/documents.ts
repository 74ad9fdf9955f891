import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type CreateDatasetRequest,
  type CreatedDataset,
  type CreatedWebhook,
  type CreateWebhookRequest,
  type CursorPageOf,
  type Dataset,
  type DatasetDataQuery,
  type DatasetParseRequest,
  type DatasetsPage,
  documentRoutes,
  type FileMetadata,
  type FilesPage,
  type Labels,
  type ListDatasetsQuery,
  type ListFilesQuery,
  type ListParseJobsQuery,
  type ListWebhookDeliveriesQuery,
  PARSE_EVENTS,
  type ParseJob,
  type ParseRequest,
  type ParseResult,
  type ParseResultsPage,
  type ReadRequest,
  readSseStream,
  SSE_CONTENT_TYPE,
  type StructuredData,
  type UpdateDatasetRequest,
  type UpdateWebhookRequest,
  type UploadedFile,
  type Webhook,
  type WebhookDeliveriesPage,
  type WebhookDelivery,
} from "@svc/contract";
import { ClientError, NotFoundError, TimeoutError } from "./errors.ts";
import { multipartBody } from "./multipart.ts";
import type { Transport } from "./transport.ts";

/** File contents given as bytes or a stream (a Node Readable, a web ReadableStream, any async iterable). */
export type FileData = Uint8Array | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** Options of `documents.files.upload()`. */
export interface UploadOptions {
  /** The name the server keeps and infers the type from; default the path's base name. Required for bytes and streams. */
  fileName?: string;
  /** The part's Content-Type; the server prefers it to the name's extension unless it is vague. Default octet-stream. */
  contentType?: string;
  /** Free metadata of the file. */
  labels?: Labels;
  signal?: AbortSignal;
}

/** Options of `documents.wait()`. */
export interface WaitOptions {
  /** Called with the job each time its status or page counts change, the first state included. */
  onUpdate?: (result: ParseResult) => void;
  /** Give up after this long (SvcError `TIMEOUT`); default 15 minutes. */
  timeoutMs?: number;
  /** Follow the job's event stream (default) or only poll it. */
  stream?: boolean;
  /** Longest wait between two polls when polling; default 1000. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/** The request of a parse job without its source: what `parseFile()` sends along with the uploaded file. */
export type ParseOptions = Omit<ParseRequest, "file_id" | "file_url" | "raw_text">;

/** Options of `documents.parseFile()`. */
export interface ParseFileOptions extends WaitOptions {
  /** As in upload(); required for bytes and streams. */
  fileName?: string;
  contentType?: string;
  /** `read` starts a read job: no structured extraction or page classification. Default `parse`. */
  mode?: "parse" | "read";
  /** Parse with this dataset's settings (id); `request` may then carry only page_range, file_name, mime_type, labels. */
  datasetId?: string;
  request?: ParseOptions;
}

const DEFAULT_WAIT_MS = 15 * 60_000;

function isEnded(result: ParseResult): boolean {
  return result.status === "successful" || result.status === "failure";
}

/** One structured_data entry with its data typed as the caller's schema. */
export type StructuredDataOf<T> = Omit<StructuredData, "data"> & { data: T };

/**
 * The structured data a parse result holds for one schema: one entry per partition (one in all with the
 * default partition strategy `none`), in document order; empty when the result has none for that name. Values
 * the document does not hold are null.
 *
 * @example
 * const result = await client.documents.parseFile("invoice.pdf", {
 *   request: { structured_extraction_options: [{ schema_name: "invoice", json_schema: invoiceSchema, provide_citations: true }] },
 * });
 * const [invoice] = structuredDataOf<{ invoice_number: string | null; total_due: number | null }>(result, "invoice");
 * console.log(invoice.data.total_due, invoice.citations?.find((c) => c.field === "/total_due")?.page_number);
 */
export function structuredDataOf<T = unknown>(
  result: ParseResult,
  schemaName: string,
): StructuredDataOf<T>[] {
  return (result.structured_data ?? []).filter(
    (entry) => entry.schema_name === schemaName,
  ) as StructuredDataOf<T>[];
}

/**
 * The pages a parse result put in one page class (page_classifications), in order; empty when none matched.
 *
 * @example
 * const result = await client.documents.parseFile("mixed.pdf", {
 *   request: { page_classifications: [{ name: "invoice", description: "An invoice with a total due" }] },
 * });
 * console.log(pagesOfClass(result, "invoice")); // e.g. [1, 3]
 */
export function pagesOfClass(result: ParseResult, pageClass: string): number[] {
  return result.page_classes?.find((entry) => entry.page_class === pageClass)?.page_numbers ?? [];
}

/** Every item of a cursor list, newest first, fetching pages as the iteration reaches them. */
async function* everyItem<T>(fetchPage: (cursor?: string) => Promise<CursorPageOf<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (!page.has_more || !page.next_cursor) return;
    cursor = page.next_cursor;
  }
}

/**
 * A parse result as markdown: its chunks joined by a blank line (with chunking `none`, the one chunk is the
 * whole document); when a result has no chunks, its pages' fragments in reading order. Empty for a job that has
 * not succeeded.
 *
 * @example
 * const result = await client.documents.parseFile("report.md");
 * console.log(parseResultMarkdown(result));
 */
export function parseResultMarkdown(result: ParseResult): string {
  if (result.chunks && result.chunks.length > 0) return result.chunks.map((c) => c.content).join("\n\n");
  const blocks: string[] = [];
  for (const page of result.pages ?? []) {
    const fragments = [...(page.page_fragments ?? [])].sort(
      (a, b) => (a.reading_order ?? 0) - (b.reading_order ?? 0),
    );
    for (const fragment of fragments) {
      const content = fragment.content as { content: string; level?: number; markdown?: string | null };
      if (fragment.fragment_type === "table") blocks.push(content.markdown ?? content.content);
      else if (content.level !== undefined)
        blocks.push(`${"#".repeat(Math.min(Math.max(content.level, 1), 6))} ${content.content}`);
      else blocks.push(content.content);
    }
  }
  return blocks.join("\n\n");
}

/**
 * The documents API: uploaded files, parse and read jobs and their results, datasets and webhooks.
 *
 * @example
 * const result = await client.documents.parseFile("invoice.md", { onUpdate: (r) => console.error(r.status) });
 * console.log(parseResultMarkdown(result));
 */
export class Documents {
  readonly #transport: Transport;
  /** Uploaded files. */
  readonly files: DocumentFiles;
  /** Named parse settings and the results parsed with them. */
  readonly datasets: Datasets;
  /** URLs told about parse job events. */
  readonly webhooks: Webhooks;

  constructor(transport: Transport) {
    this.#transport = transport;
    this.files = new DocumentFiles(transport);
    this.datasets = new Datasets(transport);
    this.webhooks = new Webhooks(transport);
  }

  /**
   * Starts a parse job (layout, markdown, and optionally classification, extraction, enrichment) and answers
   * at once; the source is one of file_id, file_url, raw_text.
   *
   * @example
   * const { parse_id } = await client.documents.parse({ file_url: "https://example.com/a.pdf", page_range: "1-3" });
   */
  parse(request: ParseRequest): Promise<ParseJob> {
    return this.#transport.call(documentRoutes.parseDocument, { body: request });
  }

  /**
   * Starts a read job: a parse without structured extraction and page classification.
   *
   * @example
   * const { parse_id } = await client.documents.read({ raw_text: "# Notes\n\nText", mime_type: "text/markdown" });
   */
  read(request: ReadRequest): Promise<ParseJob> {
    return this.#transport.call(documentRoutes.readDocument, { body: request });
  }

  /**
   * A job's state and, once successful, its result (pages, chunks, usage...).
   *
   * @example
   * const { status, chunks } = await client.documents.get("parse_...");
   */
  get(parseId: string): Promise<ParseResult> {
    return this.#transport.call(documentRoutes.getParseResult, { params: { parse_id: parseId } });
  }

  /**
   * Waits until a job ends and returns its result, `successful` or `failure` (then `error` says why). It follows
   * the job's event stream, and polls when the stream is not available or breaks.
   *
   * @example
   * const result = await client.documents.wait(parse_id, {
   *   onUpdate: (r) => console.error(r.status, r.parsed_pages_count),
   *   timeoutMs: 60_000,
   * });
   * if (result.status === "failure") throw new Error(result.error ?? "parse failed");
   */
  async wait(parseId: string, options: WaitOptions = {}): Promise<ParseResult> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
    let last: ParseResult | undefined;
    const seen = (result: ParseResult): boolean => {
      if (
        !last ||
        last.status !== result.status ||
        last.parsed_pages_count !== result.parsed_pages_count ||
        last.total_pages !== result.total_pages
      ) {
        options.onUpdate?.(result);
      }
      last = result;
      return isEnded(result);
    };
    try {
      if (options.stream !== false) {
        const streamed = await this.#follow(parseId, signal, seen);
        if (streamed) return streamed;
      }
      let interval = 50;
      for (;;) {
        const result = await this.#transport.call(documentRoutes.getParseResult, {
          params: { parse_id: parseId },
          signal,
        });
        if (seen(result)) return result;
        await sleep(interval, undefined, { signal });
        interval = Math.min(interval * 2, options.pollIntervalMs ?? 1000);
      }
    } catch (error) {
      if (timeout.signal.aborted && !options.signal?.aborted) {
        throw new TimeoutError(
          `parse job ${parseId} did not end within ${timeoutMs} ms (last status: ${last?.status ?? "unknown"})`,
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Follows the job's event stream until it ends. Answers the final result, or undefined when the stream is
   * not available or ends early (the caller polls then); HTTP errors and aborts are thrown.
   */
  async #follow(
    parseId: string,
    signal: AbortSignal,
    seen: (result: ParseResult) => boolean,
  ): Promise<ParseResult | undefined> {
    const response = await this.#transport.send(documentRoutes.getParseResult, {
      params: { parse_id: parseId },
      headers: { accept: SSE_CONTENT_TYPE },
      signal,
    });
    try {
      if (!(response.headers.get("content-type") ?? "").startsWith(SSE_CONTENT_TYPE)) {
        // A server without the stream form answers the JSON result.
        const result = (await response.json()) as ParseResult;
        return seen(result) ? result : undefined;
      }
      for await (const message of readSseStream(response.body as unknown as AsyncIterable<Uint8Array>)) {
        if (!(PARSE_EVENTS as readonly string[]).includes(message.event)) continue;
        const result = JSON.parse(message.data) as ParseResult;
        if (seen(result)) return result;
      }
      return undefined;
    } catch (error) {
      if (signal.aborted) throw error;
      // The connection broke mid-stream: polling takes over.
      return undefined;
    } finally {
      await response.body?.cancel().catch(() => undefined);
    }
  }

  /**
   * Uploads a file (a path, bytes or a stream), parses it and waits for the result: upload, then parse (or read,
   * or a dataset's parse), then wait. The result may be `failure`; the uploaded file is kept.
   *
   * @example
   * const result = await client.documents.parseFile("./slides.md", {
   *   request: { page_range: "1-3", parsing_options: { chunking_strategy: "page" } },
   * });
   * for (const chunk of result.chunks ?? []) console.log(chunk.page_number, chunk.content);
   */
  async parseFile(source: string | FileData, options: ParseFileOptions = {}): Promise<ParseResult> {
    const uploadOptions = {
      fileName: options.fileName,
      contentType: options.contentType,
      signal: options.signal,
    };
    const file =
      typeof source === "string"
        ? await this.files.upload(source, uploadOptions)
        : await this.files.upload(source, { ...uploadOptions, fileName: options.fileName ?? "" });
    const request = { ...options.request, file_id: file.file_id };
    const job = options.datasetId
      ? await this.datasets.parse(options.datasetId, request as DatasetParseRequest)
      : options.mode === "read"
        ? await this.read(request as ReadRequest)
        : await this.parse(request);
    return this.wait(job.parse_id, options);
  }

  /**
   * One page of the project's parse jobs, newest first, with optional filters.
   *
   * @example
   * const { items, next_cursor } = await client.documents.listJobs({ status: "failure", limit: 20 });
   */
  listJobs(query: ListParseJobsQuery = {}): Promise<ParseResultsPage> {
    return this.#transport.call(documentRoutes.listParseJobs, { query });
  }

  /**
   * Every parse job matching the filters, newest first, fetching pages as the loop goes.
   *
   * @example
   * for await (const job of client.documents.iterateJobs({ dataset_name: "invoices" })) console.log(job.parse_id);
   */
  iterateJobs(query: Omit<ListParseJobsQuery, "cursor" | "direction"> = {}): AsyncGenerator<ParseResult> {
    return everyItem((cursor) => this.listJobs({ ...query, cursor }));
  }

  /**
   * Deletes a job and its result.
   *
   * @example
   * await client.documents.deleteJob("parse_...");
   */
  async deleteJob(parseId: string): Promise<void> {
    await this.#transport.call(documentRoutes.deleteParseJob, { params: { parse_id: parseId } });
  }
}

/** Files uploaded to the documents API. */
export class DocumentFiles {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Uploads a file as a streamed multipart body: a path is read as the request is sent, never whole into memory.
   * Bytes and streams need `fileName`.
   *
   * @example
   * const { file_id } = await client.documents.files.upload("./contract.md", { labels: { customer: "acme" } });
   * const other = await client.documents.files.upload(bytes, { fileName: "notes.txt" });
   */
  upload(filePath: string, options?: UploadOptions): Promise<UploadedFile>;
  upload(data: FileData, options: UploadOptions & { fileName: string }): Promise<UploadedFile>;
  async upload(source: string | FileData, options: UploadOptions = {}): Promise<UploadedFile> {
    let data: AsyncIterable<Uint8Array> | Uint8Array;
    let fileName = options.fileName;
    if (typeof source === "string") {
      const info = await stat(source).catch((error: NodeJS.ErrnoException) => {
        throw new ClientError(`cannot read ${source}: ${error.code ?? error.message}`, "INVALID_FILE");
      });
      if (!info.isFile()) throw new ClientError(`${source} is not a file`, "INVALID_FILE");
      fileName ||= path.basename(source);
      // Opened when the body is first pulled, so a request that never starts leaves no file open.
      data = (async function* () {
        yield* createReadStream(source);
      })();
    } else {
      data = source as AsyncIterable<Uint8Array> | Uint8Array;
    }
    if (!fileName)
      throw new ClientError("uploading bytes or a stream needs options.fileName", "INVALID_FILE");
    let sourceError: unknown;
    const guarded =
      data instanceof Uint8Array
        ? data
        : (async function* () {
            try {
              yield* data as AsyncIterable<Uint8Array>;
            } catch (error) {
              sourceError = error;
              throw error;
            }
          })();
    const { body, contentType } = multipartBody([
      ...(options.labels ? [{ name: "labels", value: JSON.stringify(options.labels) }] : []),
      {
        name: "file",
        fileName,
        contentType: options.contentType ?? "application/octet-stream",
        data: guarded,
      },
    ]);
    try {
      return await this.#transport.call(documentRoutes.uploadDocumentFile, {
        rawBody: body,
        headers: { "content-type": contentType },
        signal: options.signal,
      });
    } catch (error) {
      if (sourceError !== undefined) {
        throw new ClientError(
          `reading the file to upload failed: ${(sourceError as Error).message}`,
          "INVALID_FILE",
        );
      }
      throw error;
    }
  }

  /**
   * One page of the project's files, newest first.
   *
   * @example
   * const { items, has_more, next_cursor } = await client.documents.files.list({ limit: 50 });
   */
  list(query: ListFilesQuery = {}): Promise<FilesPage> {
    return this.#transport.call(documentRoutes.listDocumentFiles, { query });
  }

  /**
   * Every file of the project, newest first, fetching pages as the loop goes.
   *
   * @example
   * for await (const file of client.documents.files.iterate()) console.log(file.file_id, file.file_name);
   */
  iterate(query: Pick<ListFilesQuery, "limit"> = {}): AsyncGenerator<FileMetadata> {
    return everyItem((cursor) => this.list({ ...query, cursor }));
  }

  /**
   * A file's metadata: name, type, size, checksum, labels.
   *
   * @example
   * const { mime_type, file_size } = await client.documents.files.get("file_...");
   */
  get(fileId: string): Promise<FileMetadata> {
    return this.#transport.call(documentRoutes.getDocumentFileMetadata, { params: { file_id: fileId } });
  }

  /**
   * Deletes a file; results parsed from it stay.
   *
   * @example
   * await client.documents.files.delete("file_...");
   */
  async delete(fileId: string): Promise<void> {
    await this.#transport.call(documentRoutes.deleteDocumentFile, { params: { file_id: fileId } });
  }
}

/** Datasets: named parse settings, and the results of the documents parsed with them. */
export class Datasets {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a dataset; its name (letters, digits, `-`, `_`) is unique in the project.
   *
   * @example
   * const { dataset_id } = await client.documents.datasets.create({
   *   name: "invoices",
   *   parsing_options: { chunking_strategy: "page" },
   * });
   */
  create(request: CreateDatasetRequest): Promise<CreatedDataset> {
    return this.#transport.call(documentRoutes.createDataset, { body: request });
  }

  /**
   * A dataset by id or, failing that, by name; `analytics` adds its job counts by state.
   *
   * @example
   * const { analytics } = await client.documents.datasets.get("invoices", { analytics: true });
   */
  async get(idOrName: string, options: { analytics?: boolean } = {}): Promise<Dataset> {
    const byId = (id: string) =>
      this.#transport.call(documentRoutes.getDataset, {
        params: { dataset_id: id },
        query: options.analytics ? { include_analytics: true } : {},
      });
    try {
      return await byId(idOrName);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      const named = (await this.list({ name: idOrName, limit: 1 })).items[0];
      if (!named) throw error;
      return options.analytics ? byId(named.dataset_id) : named;
    }
  }

  /**
   * One page of the project's datasets, newest first; filters by exact name or status.
   *
   * @example
   * const { items } = await client.documents.datasets.list({ status: "processing" });
   */
  list(query: ListDatasetsQuery = {}): Promise<DatasetsPage> {
    return this.#transport.call(documentRoutes.listDatasets, { query });
  }

  /**
   * Every dataset of the project, newest first.
   *
   * @example
   * for await (const dataset of client.documents.datasets.iterate()) console.log(dataset.name);
   */
  iterate(query: Omit<ListDatasetsQuery, "cursor" | "direction"> = {}): AsyncGenerator<Dataset> {
    return everyItem((cursor) => this.list({ ...query, cursor }));
  }

  /**
   * Renames a dataset or changes its settings; a field left out keeps its value; later jobs only.
   *
   * @example
   * await client.documents.datasets.update(dataset_id, { name: "invoices-2026", description: null });
   */
  update(datasetId: string, changes: UpdateDatasetRequest): Promise<Dataset> {
    return this.#transport.call(documentRoutes.updateDataset, {
      params: { dataset_id: datasetId },
      body: changes,
    });
  }

  /**
   * Deletes a dataset; its name is free again, its jobs and results stay.
   *
   * @example
   * await client.documents.datasets.delete(dataset_id);
   */
  async delete(datasetId: string): Promise<void> {
    await this.#transport.call(documentRoutes.deleteDataset, { params: { dataset_id: datasetId } });
  }

  /**
   * Starts a parse job with the dataset's settings; the request names only the source and its modifiers.
   *
   * @example
   * const { file_id } = await client.documents.files.upload("./inv-42.md");
   * const { parse_id } = await client.documents.datasets.parse(dataset_id, { file_id });
   * const result = await client.documents.wait(parse_id);
   */
  parse(datasetId: string, request: DatasetParseRequest): Promise<ParseJob> {
    return this.#transport.call(documentRoutes.parseWithDataset, {
      params: { dataset_id: datasetId },
      body: request,
    });
  }

  /**
   * One page of the dataset's parse results, newest first.
   *
   * @example
   * const { items } = await client.documents.datasets.data(dataset_id, { status: "successful", limit: 10 });
   */
  data(datasetId: string, query: DatasetDataQuery = {}): Promise<ParseResultsPage> {
    return this.#transport.call(documentRoutes.listDatasetData, {
      params: { dataset_id: datasetId },
      query,
    });
  }

  /**
   * Every parse result of the dataset, newest first.
   *
   * @example
   * for await (const result of client.documents.datasets.iterateData(dataset_id)) console.log(result.status);
   */
  iterateData(
    datasetId: string,
    query: Omit<DatasetDataQuery, "cursor" | "direction"> = {},
  ): AsyncGenerator<ParseResult> {
    return everyItem((cursor) => this.data(datasetId, { ...query, cursor }));
  }
}

/** Webhooks: URLs told, with Standard Webhooks signatures, when the project's parse jobs are created and end. */
export class Webhooks {
  readonly #transport: Transport;
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Registers a URL; the answer carries the signing secret, and is the only one that does.
   *
   * @example
   * const { webhook_id, secret } = await client.documents.webhooks.create({
   *   url: "https://example.com/hooks/parse",
   *   events: ["document_ingestion.job.completed", "document_ingestion.job.failed"],
   * });
   */
  create(request: CreateWebhookRequest): Promise<CreatedWebhook> {
    return this.#transport.call(documentRoutes.createWebhook, { body: request });
  }

  /**
   * The project's webhooks (without their secrets).
   *
   * @example
   * for (const hook of await client.documents.webhooks.list()) console.log(hook.webhook_id, hook.url);
   */
  async list(): Promise<Webhook[]> {
    return (await this.#transport.call(documentRoutes.listWebhooks)).webhooks;
  }

  /**
   * One webhook.
   *
   * @example
   * const { url, events } = await client.documents.webhooks.get("webhook_...");
   */
  get(webhookId: string): Promise<Webhook> {
    return this.#transport.call(documentRoutes.getWebhook, { params: { webhook_id: webhookId } });
  }

  /**
   * Changes a webhook's URL, events, description or secret; a field left out keeps its value.
   *
   * @example
   * await client.documents.webhooks.update(webhook_id, { events: ["document_ingestion.job.failed"] });
   */
  update(webhookId: string, changes: UpdateWebhookRequest): Promise<Webhook> {
    return this.#transport.call(documentRoutes.updateWebhook, {
      params: { webhook_id: webhookId },
      body: changes,
    });
  }

  /**
   * Deletes a webhook; its pending retries are dropped.
   *
   * @example
   * await client.documents.webhooks.delete(webhook_id);
   */
  async delete(webhookId: string): Promise<void> {
    await this.#transport.call(documentRoutes.deleteWebhook, { params: { webhook_id: webhookId } });
  }

  /**
   * One page of the webhook's delivery attempts, newest first.
   *
   * @example
   * const { items } = await client.documents.webhooks.deliveries(webhook_id, { limit: 20 });
   * for (const d of items) console.log(d.event, d.attempt, d.status_code, d.succeeded);
   */
  deliveries(webhookId: string, query: ListWebhookDeliveriesQuery = {}): Promise<WebhookDeliveriesPage> {
    return this.#transport.call(documentRoutes.listWebhookDeliveries, {
      params: { webhook_id: webhookId },
      query,
    });
  }

  /**
   * Every delivery attempt of the webhook, newest first.
   *
   * @example
   * for await (const d of client.documents.webhooks.iterateDeliveries(webhook_id)) if (!d.succeeded) console.log(d.error);
   */
  iterateDeliveries(
    webhookId: string,
    query: Pick<ListWebhookDeliveriesQuery, "limit"> = {},
  ): AsyncGenerator<WebhookDelivery> {
    return everyItem((cursor) => this.deliveries(webhookId, { ...query, cursor }));
  }
}
