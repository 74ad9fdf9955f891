import { readFile } from "node:fs/promises";
import {
  type ChunkingStrategy,
  type DatasetParseRequest,
  DOCUMENT_LIMITS,
  type EnrichmentOptions,
  type MimeType,
  type PageClassConfig,
  type ParseJob,
  type ParseResult,
  type PartitionStrategy,
  type StructuredExtractionOptions,
  type TableOutputMode,
} from "@svc/contract";
import { Client, parseResultMarkdown } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { parseProgress } from "../progress.ts";
import { integerOption, parse, UsageError } from "../usage.ts";

const USAGE = usageOf("parse");

const CHUNKING = ["none", "page", "section", "fragment"];
const TABLES = ["markdown", "html"];

/** `NAME=VALUE` of a repeatable option. */
function nameValue(option: string, text: string): [string, string] {
  const at = text.indexOf("=");
  if (at <= 0 || at === text.length - 1) throw new UsageError(`--${option} takes NAME=VALUE; got ${text}`);
  return [text.slice(0, at), text.slice(at + 1)];
}

/** The structured extractions of `--extract NAME=SCHEMA.json` (with --provider, --partition, --citations). */
async function extractionsOf(values: {
  extract?: string[];
  provider?: string;
  partition?: string;
  citations?: boolean;
}): Promise<StructuredExtractionOptions[] | undefined> {
  if (!values.extract?.length) {
    if (values.provider || values.partition || values.citations)
      throw new UsageError("--provider, --partition and --citations go with --extract");
    return undefined;
  }
  if (values.partition !== undefined && !CHUNKING.includes(values.partition))
    throw new UsageError(`--partition takes ${CHUNKING.join(", ")}`);
  const extractions: StructuredExtractionOptions[] = [];
  for (const text of values.extract) {
    const [schemaName, file] = nameValue("extract", text);
    let jsonSchema: unknown;
    try {
      jsonSchema = JSON.parse(await readFile(file, "utf8"));
    } catch (error) {
      throw new UsageError(
        `--extract ${schemaName}: cannot read a JSON schema from ${file}: ${(error as Error).message}`,
      );
    }
    extractions.push({
      schema_name: schemaName,
      json_schema: jsonSchema as StructuredExtractionOptions["json_schema"],
      ...(values.provider ? { model_provider: values.provider } : {}),
      ...(values.partition ? { partition_strategy: values.partition as PartitionStrategy } : {}),
      ...(values.citations ? { provide_citations: true } : {}),
    });
  }
  return extractions;
}

/** What `-` read: text small enough to send as raw_text, or a stream to upload. */
type StdinSource = { rawText: string } | { upload: AsyncIterable<Uint8Array> };

/**
 * Reads stdin up to the raw_text limit. Text (valid UTF-8 without NUL, and a `text/*` type or none) that ends
 * within it is sent as raw_text; anything else is uploaded as a file, streaming what was read and the rest.
 */
async function readStdin(mime: string | undefined): Promise<StdinSource> {
  const input = process.stdin[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size <= DOCUMENT_LIMITS.rawTextChars) {
    const next = await input.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  if (size === 0) throw new UsageError("stdin is empty");
  if (ended && (mime === undefined || mime.startsWith("text/"))) {
    try {
      const text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(head));
      if (!text.includes("\0")) return { rawText: text };
    } catch {
      // Not UTF-8: uploaded as bytes.
    }
  }
  return {
    upload: (async function* () {
      yield* head;
      if (ended) return;
      for (let next = await input.next(); !next.done; next = await input.next()) yield next.value;
    })(),
  };
}

/**
 * `svc parse <file|url|->`: uploads a file (or names a URL, or reads stdin), starts a parse job (a read job
 * with --read, a dataset's parse with --dataset), waits for it with a progress line on a terminal's stderr,
 * and prints the document as markdown (the result's chunks joined by a blank line) or, with --json, the
 * ParseResult. With --extract or --classify it prints the page classes and structured data as JSON instead
 * (--markdown: the document). Exits 1 with the reason when the job fails.
 */
export async function parseCommand(args: string[]): Promise<number | undefined> {
  const { values, positionals } = parse(
    args,
    {
      read: { type: "boolean" },
      pages: { type: "string" },
      markdown: { type: "boolean" },
      dataset: { type: "string" },
      mime: { type: "string" },
      chunking: { type: "string" },
      tables: { type: "string" },
      timeout: { type: "string" },
      extract: { type: "string", multiple: true },
      provider: { type: "string" },
      partition: { type: "string" },
      citations: { type: "boolean" },
      classify: { type: "string", multiple: true },
      "summarize-tables": { type: "boolean" },
      "summarize-figures": { type: "boolean" },
      charts: { type: "boolean" },
      "page-images": { type: "boolean" },
    },
    1,
  );
  const target = positionals[0];
  if (!target) throw new UsageError(USAGE);
  if (values.json && values.markdown) throw new UsageError("--json and --markdown do not go together");
  if (values.chunking !== undefined && !CHUNKING.includes(values.chunking))
    throw new UsageError(`--chunking takes ${CHUNKING.join(", ")}`);
  if (values.tables !== undefined && !TABLES.includes(values.tables))
    throw new UsageError(`--tables takes ${TABLES.join(", ")}`);
  if (values.dataset !== undefined && (values.read || values.chunking || values.tables))
    throw new UsageError(
      "a dataset's own settings apply: --dataset goes without --read, --chunking, --tables",
    );
  const timeoutSecs = integerOption(values.timeout, "timeout");
  const extractions = await extractionsOf(values);
  const classes: PageClassConfig[] | undefined = values.classify?.map((text) => {
    const [name, description] = nameValue("classify", text);
    return { name, description };
  });
  const enrichment: EnrichmentOptions = {
    ...(values["summarize-tables"] ? { table_summarization: true } : {}),
    ...(values["summarize-figures"] ? { figure_summarization: true } : {}),
    ...(values.charts ? { chart_extraction: true } : {}),
    ...(values["page-images"] ? { include_full_page_image: true } : {}),
  };
  const understands = extractions !== undefined || classes !== undefined;
  if (understands && values.read) throw new UsageError("--read goes without --extract and --classify");
  if (values.dataset !== undefined && (understands || Object.keys(enrichment).length > 0))
    throw new UsageError(
      "a dataset's own settings apply: --dataset goes without --extract, --classify and enrichment",
    );

  const documents = new Client().documents;
  // Resolved first, so a wrong name uploads nothing.
  const dataset = values.dataset === undefined ? undefined : await documents.datasets.get(values.dataset);
  const request: DatasetParseRequest = {};
  if (/^https?:\/\//i.test(target)) request.file_url = target;
  else if (target === "-") {
    const stdin = await readStdin(values.mime);
    if ("rawText" in stdin) request.raw_text = stdin.rawText;
    else {
      const uploaded = await documents.files.upload(stdin.upload, {
        fileName: "stdin",
        contentType: values.mime,
      });
      request.file_id = uploaded.file_id;
    }
  } else request.file_id = (await documents.files.upload(target)).file_id;
  if (values.pages !== undefined) request.page_range = values.pages;
  if (values.mime !== undefined) request.mime_type = values.mime as MimeType;

  let job: ParseJob;
  if (dataset) {
    job = await documents.datasets.parse(dataset.dataset_id, request);
  } else {
    // The output is markdown, so tables are too unless asked otherwise.
    const parsing_options = {
      table_output_mode: (values.tables ?? "markdown") as TableOutputMode,
      ...(values.chunking ? { chunking_strategy: values.chunking as ChunkingStrategy } : {}),
    };
    const enrichment_options = Object.keys(enrichment).length > 0 ? enrichment : undefined;
    job = values.read
      ? await documents.read({ ...request, parsing_options, enrichment_options })
      : await documents.parse({
          ...request,
          parsing_options,
          enrichment_options,
          structured_extraction_options: extractions,
          page_classifications: classes,
        });
  }

  const progress = parseProgress(process.stderr, job.parse_id);
  let result: ParseResult | undefined;
  try {
    result = await documents.wait(job.parse_id, {
      onUpdate: (update) => progress.update(update),
      timeoutMs: timeoutSecs === undefined ? undefined : timeoutSecs * 1000,
    });
  } finally {
    progress.done(result);
  }
  if (values.json) console.log(JSON.stringify(result, null, 2));
  if (result.status === "failure") {
    console.error(`svc: parse ${result.parse_id} failed: ${result.error ?? "no reason given"}`);
    return 1;
  }
  if (!values.json && understands && !values.markdown) {
    // Extraction and classification print their results; --markdown prints the document instead.
    const { page_classes, structured_data } = result;
    console.log(JSON.stringify({ page_classes, structured_data }, null, 2));
  } else if (!values.json) {
    const markdown = parseResultMarkdown(result);
    process.stdout.write(markdown.endsWith("\n") || markdown === "" ? markdown : `${markdown}\n`);
  }
  return 0;
}
