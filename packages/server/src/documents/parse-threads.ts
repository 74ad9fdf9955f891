import { Worker } from "node:worker_threads";
import type {
  EnrichmentOptions,
  PageClass,
  PageClassConfig,
  ParsingOptions,
  StructuredData,
  StructuredExtractionOptions,
} from "@svc/contract";
import type { ParseViews, ProviderSettings, TokenUsage } from "@svc/docparse";
import type { VisionTask } from "./model-providers.ts";

/**
 * What runs after the parse (docparse's understandDocument): classification, extraction, enrichment, with the
 * settings of the configured providers they use (keys included; they stay in memory).
 */
export interface IntelligenceTask {
  pageClassifications: PageClassConfig[] | null;
  /** Each extraction with its defaults filled and the configured provider it runs on (null: offline). */
  extractions: { option: StructuredExtractionOptions; provider: string | null }[] | null;
  enrichment: Required<EnrichmentOptions>;
  /** Settings of every provider named here, by name. */
  providers: Record<string, ProviderSettings>;
  classificationProvider: string | null;
  enrichmentProvider: string | null;
}

/** What understandDocument gave, in wire shapes. */
export interface IntelligenceResult {
  page_classes: PageClass[] | null;
  structured_data: StructuredData[] | null;
  usage: { extraction: [string, TokenUsage][]; summarization: [string, TokenUsage][] };
}

/** One document to parse, sent to a thread. */
export interface ParseTask {
  id: number;
  bytes?: Uint8Array;
  text?: string;
  mimeType: string;
  parsingOptions: Required<ParsingOptions>;
  pageRange: string | null;
  /** Null when the job asks for none of classification, extraction and enrichment. */
  intelligence: IntelligenceTask | null;
  /** The vision model pages read from their image go to; null: OCR only. */
  vision: VisionTask | null;
}

/** A thread's answer: the views, bad input (DocumentLoadError), or another error (an engine defect). */
export type ParseReply =
  | {
      kind: "ok";
      result: ParseViews;
      intelligence: IntelligenceResult | null;
      /** Tokens of the vision model's page transcriptions, by provider. */
      ocrUsage: [string, TokenUsage][];
      /** Problems on pages that did not stop the parse. */
      warnings: string[];
    }
  /** A model provider failed, or kept answering outside the schema, or failed a transcription the job required. */
  | { kind: "provider-error"; message: string }
  | { kind: "load-error"; message: string; code: string | null }
  | { kind: "error"; message: string };
export type ParseThreadReply = ParseReply & { id: number };

/** How a task ended: a reply, or the thread died (crash, heap exhausted), ran past its time, or was stopped. */
export type ParseOutcome =
  | ParseReply
  | { kind: "crashed"; message: string }
  | { kind: "timeout" }
  | { kind: "stopped" };

export interface ParseThreadOptions {
  /** Heap limit of the thread (old generation), in MiB. */
  memoryMb: number;
  /** Enables the test hooks of parse-thread.ts. */
  testHooks?: boolean;
}

/**
 * A long-lived worker thread that parses one task at a time, so the event loop of the server never runs a parse.
 * After a crash, a timeout or `stop`, the thread is gone: `alive` is false and the caller starts another.
 */
export class ParseThread {
  readonly #worker: Worker;
  #alive = true;
  #nextId = 1;
  #current: { id: number; finish: (outcome: ParseOutcome) => void } | null = null;
  #exitMessage = "";

  constructor(options: ParseThreadOptions) {
    this.#worker = new Worker(new URL("./parse-thread.ts", import.meta.url), {
      workerData: { testHooks: options.testHooks === true },
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
      stdout: false,
      stderr: false,
    });
    this.#worker.on("message", (reply: ParseThreadReply) => {
      if (this.#current?.id === reply.id) {
        const { id: _, ...outcome } = reply;
        this.#current.finish(outcome as ParseReply);
      }
    });
    this.#worker.on("error", (error: Error & { code?: string }) => {
      this.#exitMessage =
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? `the parse ran out of memory (limit ${options.memoryMb} MiB)`
          : `the parser crashed: ${error.message}`;
    });
    this.#worker.on("exit", (code) => {
      this.#alive = false;
      this.#current?.finish({
        kind: "crashed",
        message: this.#exitMessage || `the parse worker exited with code ${code}`,
      });
    });
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Parses one task; at most `timeoutMs`, after which the thread is ended. `signal` stops it early. */
  run(task: Omit<ParseTask, "id">, timeoutMs: number, signal?: AbortSignal): Promise<ParseOutcome> {
    if (!this.#alive) return Promise.resolve({ kind: "crashed", message: "the parse worker is not running" });
    if (this.#current) throw new Error("a parse thread runs one task at a time");
    const id = this.#nextId++;
    return new Promise<ParseOutcome>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        finish({ kind: "stopped" });
        void this.stop();
      };
      const finish = (outcome: ParseOutcome) => {
        if (this.#current?.id !== id) return;
        this.#current = null;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      this.#current = { id, finish };
      timer = setTimeout(() => {
        finish({ kind: "timeout" });
        void this.stop();
      }, timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) return onAbort();
      const bytes = task.bytes;
      // The bytes move to the thread without a copy when they own their whole buffer.
      const transfer =
        bytes &&
        bytes.byteOffset === 0 &&
        bytes.byteLength === bytes.buffer.byteLength &&
        bytes.buffer instanceof ArrayBuffer
          ? [bytes.buffer]
          : [];
      this.#worker.postMessage({ ...task, id }, transfer);
    });
  }

  /** Ends the thread. */
  async stop(): Promise<void> {
    this.#alive = false;
    await this.#worker.terminate();
  }
}
