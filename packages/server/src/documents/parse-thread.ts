import { setTimeout as sleep } from "node:timers/promises";
import { parentPort, threadId, workerData } from "node:worker_threads";
import { parsePageRange } from "@svc/contract";
import {
  createProvider,
  DocumentLoadError,
  type DocumentModel,
  documentViews,
  type JsonSchema,
  loadDocument,
  type ModelProvider,
  TranscriptionError,
  UnderstandingError,
  UsageMeter,
  understandDocument,
  type VisionTranscription,
} from "@svc/docparse";
import type { IntelligenceResult, IntelligenceTask, ParseTask, ParseThreadReply } from "./parse-threads.ts";

/**
 * The body of a parse worker thread: runs docparse on each task it is sent and replies with the views, or with
 * the error. A task that crashes the thread or exhausts its heap ends only this thread.
 */
const port = parentPort;
if (!port) throw new Error("parse-thread.ts runs as a worker thread");
const testHooks = (workerData as { testHooks?: boolean } | undefined)?.testHooks === true;

/**
 * Test hooks, on only when the server was started with SVC_TEST_PARSE_HOOKS=1: raw text that starts with
 * `svc-test:sleep=<ms>` parses that much later; `svc-test:oom` allocates until the thread's heap limit ends it;
 * `svc-test:exit` ends the thread; `svc-test:thread` parses as `thread <id>`, the id of the thread that ran it.
 * Answers the text to parse.
 */
async function runTestHook(text: string | undefined): Promise<string | undefined> {
  const directive = /^svc-test:(\w+)(?:=(\d+))?/.exec(text ?? "");
  if (!directive) return text;
  if (directive[1] === "thread") return `thread ${threadId}`;
  if (directive[1] === "sleep") await sleep(Number(directive[2] ?? 1000));
  if (directive[1] === "exit") process.exit(70);
  if (directive[1] === "oom") {
    const hoard: unknown[] = [];
    for (;;) hoard.push(new Array(100_000).fill({ hoard }));
  }
  return text;
}

/** The pages of the request's range; null for every page. A range beyond the document is bad input. */
function keptPages(range: string | null, total: number): number[] | null {
  if (range === null) return null;
  const pages = parsePageRange(range, total);
  if (!Array.isArray(pages)) throw new DocumentLoadError(pages.message, pages.code);
  return pages;
}

/** Classification, extraction and enrichment of a parsed document, through the task's providers. */
async function understand(document: DocumentModel, task: ParseTask): Promise<IntelligenceResult> {
  const intelligence = task.intelligence as IntelligenceTask;
  const clients = new Map<string, ModelProvider>();
  const provider = (name: string | null): ModelProvider | null => {
    if (name === null) return null;
    let client = clients.get(name);
    if (!client) {
      const settings = intelligence.providers[name];
      if (!settings) throw new UnderstandingError(`model provider ${name} is not configured`);
      client = createProvider(name, settings);
      clients.set(name, client);
    }
    return client;
  };
  const understanding = await understandDocument(document, {
    pageClassifications: intelligence.pageClassifications,
    extractions:
      intelligence.extractions?.map(({ option, provider: name }) => ({
        schemaName: option.schema_name,
        jsonSchema: option.json_schema as JsonSchema,
        prompt: option.prompt ?? null,
        partitionStrategy: option.partition_strategy ?? "none",
        pageClasses: option.page_classes ?? null,
        provideCitations: option.provide_citations === true,
        skipOcr: option.skip_ocr === true,
        provider: provider(name),
      })) ?? null,
    enrichment: intelligence.enrichment,
    source: { bytes: task.bytes ?? null, mimeType: task.mimeType },
    pages: keptPages(task.pageRange, document.pages.length),
    classificationProvider: provider(intelligence.classificationProvider),
    enrichmentProvider: provider(intelligence.enrichmentProvider),
  });
  return understanding;
}

/** The task's vision transcription, with a client that counts its tokens into `meter`; undefined for OCR only. */
function visionOf(task: ParseTask, meter: UsageMeter): VisionTranscription | undefined {
  if (!task.vision) return undefined;
  const { provider, settings, pages, required } = task.vision;
  return { provider: meter.wrap(createProvider(provider, settings)), pages, required };
}

port.on("message", async (task: ParseTask) => {
  let reply: ParseThreadReply;
  try {
    if (testHooks) task.text = await runTestHook(task.text);
    if (task.bytes === undefined && task.text === undefined) {
      throw new DocumentLoadError("The input has neither bytes nor text");
    }
    const options = { parsing: task.parsingOptions, pageRange: task.pageRange };
    const ocrMeter = new UsageMeter();
    const document = await loadDocument({
      bytes: task.bytes,
      text: task.text,
      mimeType: task.mimeType,
      options,
      vision: visionOf(task, ocrMeter),
    });
    // Views come after understanding: enrichment adds summaries and chart data to the model they show.
    const intelligence = task.intelligence ? await understand(document, task) : null;
    reply = {
      id: task.id,
      kind: "ok",
      result: documentViews(document, options),
      intelligence,
      ocrUsage: ocrMeter.entries(),
      warnings: document.warnings,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply =
      error instanceof DocumentLoadError
        ? { id: task.id, kind: "load-error", message, code: error.code }
        : error instanceof UnderstandingError || error instanceof TranscriptionError
          ? { id: task.id, kind: "provider-error", message }
          : { id: task.id, kind: "error", message };
  }
  port.postMessage(reply);
});
