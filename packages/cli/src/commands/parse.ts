import {
  type ChunkingStrategy,
  type DatasetParseRequest,
  DOCUMENT_LIMITS,
  type MimeType,
  type ParseJob,
  type ParseResult,
  type TableOutputMode,
} from "@svc/contract";
import { Client, parseResultMarkdown } from "@svc/sdk";
import { parseProgress } from "../progress.ts";
import { integerOption, parse, UsageError } from "../usage.ts";

const USAGE =
  "usage: svc parse <file|url|-> [--read] [--pages 1-3,5] [--json|--markdown] [--dataset NAME] [--mime TYPE] " +
  "[--chunking none|page|section|fragment] [--tables markdown|html] [--timeout S]";

const CHUNKING = ["none", "page", "section", "fragment"];
const TABLES = ["markdown", "html"];

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
 * ParseResult. Exits 1 with the reason when the job fails.
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
    job = values.read
      ? await documents.read({ ...request, parsing_options })
      : await documents.parse({ ...request, parsing_options });
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
  if (!values.json) {
    const markdown = parseResultMarkdown(result);
    process.stdout.write(markdown.endsWith("\n") || markdown === "" ? markdown : `${markdown}\n`);
  }
  return 0;
}
