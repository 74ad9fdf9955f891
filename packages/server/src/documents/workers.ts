import { randomBytes } from "node:crypto";
import type { WebhookEventName } from "@svc/contract";
import type { ParseViews, TokenUsage } from "@svc/docparse";
import type { Db } from "../store/db.ts";
import { toRfc3339 } from "../store/ids.ts";
import type { BlobStore } from "./blob-store.ts";
import { createFileRepository } from "./files.ts";
import type { JobEvents } from "./job-events.ts";
import { intelligenceTask, storedResultOf } from "./job-intelligence.ts";
import { type ClaimedJob, createJobRepository, type JobRecord, type StoredResult } from "./jobs.ts";
import { mimeTypeOf } from "./mime-types.ts";
import { type ModelProviders, type VisionTask, visionTaskOf } from "./model-providers.ts";
import { type IntelligenceResult, ParseThread } from "./parse-threads.ts";
import type { DocumentsSettings } from "./settings.ts";
import { type AddressGuard, fetchPublicUrl } from "./url-fetch.ts";
import { notifyJobEvent } from "./webhooks/index.ts";

export interface JobWorkersDeps {
  db: Db;
  blobs: BlobStore;
  settings: DocumentsSettings;
  events: JobEvents;
  /**
   * Where failures of the workers themselves (not of jobs) are reported, and the warnings of successful parses
   * (a page OCR could not read, a vision model that failed on a page).
   */
  log: { error(object: unknown, message: string): void; warn?(object: unknown, message: string): void };
  /** Called after a job event is queued for webhooks, so they are sent without waiting for a poll. */
  onWebhookQueued?: () => void;
  /** Test hook: which non-public addresses file_url may reach. */
  urlGuard?: AddressGuard;
  /** Enables parse-thread.ts's test hooks (SVC_TEST_PARSE_HOOKS=1). */
  testHooks?: boolean;
  /** The configured model providers the jobs' classification, extraction and enrichment may use. */
  providers: ModelProviders;
  now?: () => number;
}

/** The document of a job, ready for docparse. */
interface JobInput {
  bytes?: Uint8Array;
  text?: string;
  mimeType: string;
}

class JobInputError extends Error {}

/**
 * The parse workers of this process: `settings.workers` loops, each claiming a job with a lease, renewing the
 * lease while a worker thread parses, and storing the result. A job whose worker thread dies is given back to the
 * queue until it has been claimed `maxAttempts` times, then ends `failure`; a job whose process died is claimed
 * again once its lease expires. Nothing a document does can stop the server: parses run in threads with a heap
 * limit and a time limit.
 */
export class JobWorkers {
  readonly #deps: JobWorkersDeps;
  readonly #now: () => number;
  /** Lease owners are `<host>/<slot>`; a new host id per start, so leases of a previous run are never mistaken for ours. */
  readonly #hostId = randomBytes(6).toString("hex");
  readonly #stopping = new AbortController();
  readonly #loops: Promise<void>[] = [];
  #wakers = new Set<() => void>();
  /**
   * Parse threads no loop is using, the one used last at the end: a job takes that one, whose code is compiled and
   * whose page helper is started, where a thread that never parsed pays its start and a cold compiler. At most one
   * thread per loop exists.
   */
  readonly #idleThreads: ParseThread[] = [];
  #lastReap = 0;
  #unsubscribe: (() => void) | null = null;

  constructor(deps: JobWorkersDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  start(): void {
    if (this.#loops.length > 0 || this.#deps.settings.workers === 0) return;
    this.#unsubscribe = this.#deps.events.onQueued(() => this.#wakeOne());
    for (let slot = 0; slot < this.#deps.settings.workers; slot++) this.#loops.push(this.#loop(slot));
  }

  /** Stops claiming, stops the parses under way and gives their jobs back to the queue (without counting a try). */
  async stop(): Promise<void> {
    this.#stopping.abort();
    this.#unsubscribe?.();
    for (const wake of this.#wakers) wake();
    await Promise.all(this.#loops);
  }

  #wakeOne(): void {
    const [wake] = this.#wakers;
    wake?.();
  }

  #idle(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.#deps.settings.pollIntervalMs);
      this.#wakers.add(done);
    });
  }

  async #loop(slot: number): Promise<void> {
    const owner = `${this.#hostId}/${slot}`;
    const { db, settings } = this.#deps;
    const jobs = createJobRepository(db, this.#now);
    while (!this.#stopping.signal.aborted) {
      let job: ClaimedJob | undefined;
      try {
        await this.#reap();
        job = await jobs.claim(owner, settings.leaseSecs * 1000, settings.maxAttempts);
      } catch (error) {
        if (this.#stopping.signal.aborted) break;
        this.#deps.log.error({ err: error }, "parse worker could not claim a job");
      }
      if (!job) {
        await this.#idle();
        continue;
      }
      this.#deps.events.changed(job.id);
      const thread = this.#takeThread();
      try {
        await this.#run(job, owner, thread);
      } catch (error) {
        this.#deps.log.error({ err: error, job: job.id }, "parse worker failed to record a job's end");
      } finally {
        if (thread.alive) this.#idleThreads.push(thread);
      }
    }
    await Promise.all(this.#idleThreads.splice(0).map((thread) => thread.stop()));
  }

  /** The idle parse thread used last, or a new one. */
  #takeThread(): ParseThread {
    for (let thread = this.#idleThreads.pop(); thread; thread = this.#idleThreads.pop()) {
      if (thread.alive) return thread;
    }
    const { settings } = this.#deps;
    return new ParseThread({ memoryMb: settings.workerMemoryMb, testHooks: this.#deps.testHooks });
  }

  /** Runs one claimed job to its end, or gives it back. */
  async #run(job: ClaimedJob, owner: string, thread: ParseThread): Promise<void> {
    const { db, settings } = this.#deps;
    const jobs = createJobRepository(db, this.#now);
    const lease = new AbortController();
    const stop = AbortSignal.any([lease.signal, this.#stopping.signal]);
    const heartbeat = setInterval(
      () => {
        jobs.heartbeat(job.id, owner, settings.leaseSecs * 1000).then(
          (held) => {
            if (!held) lease.abort();
          },
          (error) =>
            this.#deps.log.error({ err: error, job: job.id }, "parse worker could not renew a lease"),
        );
      },
      Math.max(100, (settings.leaseSecs * 1000) / 3),
    );
    try {
      // The providers are resolved again when the job runs: this host's configuration is the one that counts.
      const intelligence = intelligenceTask(job.request, this.#deps.providers);
      if (typeof intelligence === "string") return await this.#fail(job, owner, intelligence);
      let vision: VisionTask | null;
      try {
        vision = visionTaskOf(this.#deps.providers, job.request.parsingOptions);
      } catch (error) {
        return await this.#fail(job, owner, (error as Error).message);
      }
      let input: JobInput;
      try {
        input = await this.#input(job);
      } catch (error) {
        if (error instanceof JobInputError) return await this.#fail(job, owner, error.message);
        throw error;
      }
      if (stop.aborted) return await this.#giveBack(job, owner, lease.signal.aborted);
      const outcome = await thread.run(
        {
          bytes: input.bytes,
          text: input.text,
          mimeType: input.mimeType,
          parsingOptions: job.request.parsingOptions,
          pageRange: job.request.pageRange,
          intelligence,
          vision,
        },
        settings.jobTimeoutSecs * 1000,
        stop,
      );
      switch (outcome.kind) {
        case "ok":
          if (outcome.warnings.length > 0)
            this.#deps.log.warn?.({ job: job.id, warnings: outcome.warnings }, "the parse has warnings");
          return await this.#complete(job, owner, outcome.result, outcome.intelligence, outcome.ocrUsage);
        case "provider-error":
          return await this.#fail(job, owner, outcome.message);
        case "load-error":
          return await this.#fail(
            job,
            owner,
            outcome.code ? `${outcome.code}: ${outcome.message}` : outcome.message,
          );
        case "error":
          return await this.#fail(job, owner, `The parser failed on this document: ${outcome.message}`);
        case "timeout":
          return await this.#fail(
            job,
            owner,
            `The parse took longer than the limit of ${settings.jobTimeoutSecs} s`,
          );
        case "crashed":
          if (job.attempts >= settings.maxAttempts) {
            return await this.#fail(
              job,
              owner,
              `The job ended its worker ${job.attempts} times; the last time ${outcome.message}`,
            );
          }
          await jobs.release(job.id, owner, false);
          this.#deps.events.changed(job.id);
          this.#deps.events.queued();
          return;
        case "stopped":
          return await this.#giveBack(job, owner, lease.signal.aborted);
      }
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** Stopped before the end: a lost lease is someone else's now; on shutdown the job goes back to the queue. */
  async #giveBack(job: JobRecord, owner: string, leaseLost: boolean): Promise<void> {
    if (leaseLost) return;
    await createJobRepository(this.#deps.db, this.#now).release(job.id, owner, true);
    this.#deps.events.changed(job.id);
  }

  async #input(job: ClaimedJob): Promise<JobInput> {
    const { request } = job;
    switch (request.source.type) {
      case "raw_text":
        return { text: job.rawText ?? "", mimeType: request.mimeType ?? "text/plain" };
      case "file_id": {
        const file = await createFileRepository(this.#deps.db).get(job.projectId, request.source.fileId);
        const bytes = file ? await this.#deps.blobs.read(file.blobKey) : undefined;
        if (!file || !bytes)
          throw new JobInputError(`The file ${request.source.fileId} was deleted before the job ran`);
        return { bytes, mimeType: request.mimeType ?? file.mimeType };
      }
      case "file_url": {
        try {
          const fetched = await fetchPublicUrl(request.source.url, {
            ...this.#deps.urlGuard,
            maxBytes: this.#deps.settings.maxFileBytes,
            timeoutMs: this.#deps.settings.fetchTimeoutSecs * 1000,
          });
          const mimeType = request.mimeType ?? mimeTypeOf(fetched.fileName ?? null, fetched.mimeType ?? null);
          return { bytes: fetched.bytes, mimeType };
        } catch (error) {
          throw new JobInputError(`Could not download file_url: ${(error as Error).message}`);
        }
      }
    }
  }

  async #complete(
    job: JobRecord,
    owner: string,
    views: ParseViews,
    intelligence: IntelligenceResult | null,
    ocrUsage: [string, TokenUsage][],
  ): Promise<void> {
    const stored: StoredResult = storedResultOf(job.kind, views, intelligence, ocrUsage);
    await this.#finish(job, "document_ingestion.job.completed", (jobs) =>
      jobs.complete(job.id, owner, {
        result: stored,
        totalPages: views.total_pages,
        parsedPagesCount: views.parsed_pages_count,
      }),
    );
  }

  async #fail(job: JobRecord, owner: string, reason: string): Promise<void> {
    await this.#finish(job, "document_ingestion.job.failed", (jobs) => jobs.fail(job.id, owner, reason));
  }

  /** Records a job's end and queues its webhook event in one transaction; nothing when the lease was lost. */
  async #finish(
    job: JobRecord,
    event: WebhookEventName,
    end: (jobs: ReturnType<typeof createJobRepository>) => Promise<JobRecord | undefined>,
  ): Promise<void> {
    const ended = await this.#deps.db.transaction(async (tx) => {
      const done = await end(createJobRepository(tx, this.#now));
      if (done)
        await notifyJobEvent(
          tx,
          { projectId: done.projectId, event, payload: webhookPayload(done) },
          this.#now,
        );
      return done;
    });
    if (ended) {
      this.#deps.events.changed(job.id);
      this.#deps.onWebhookQueued?.();
    }
  }

  /**
   * Ends as `failure` the jobs whose lease expired after their last allowed claim, with their webhook events in the
   * same transaction. At most once per poll interval in this process.
   */
  async #reap(): Promise<void> {
    const at = this.#now();
    if (at - this.#lastReap < this.#deps.settings.pollIntervalMs) return;
    this.#lastReap = at;
    const failed = await this.#deps.db.transaction(async (tx) => {
      const ended = await createJobRepository(tx, this.#now).failExhausted(this.#deps.settings.maxAttempts);
      for (const job of ended) {
        await notifyJobEvent(
          tx,
          { projectId: job.projectId, event: "document_ingestion.job.failed", payload: webhookPayload(job) },
          this.#now,
        );
      }
      return ended;
    });
    for (const job of failed) this.#deps.events.changed(job.id);
    if (failed.length > 0) this.#deps.onWebhookQueued?.();
  }
}

/** The body of a job's webhook events. */
export function webhookPayload(job: JobRecord) {
  return {
    job_id: job.id,
    status: job.status,
    created_at: toRfc3339(job.createdAt),
    dataset_id: job.datasetId,
  };
}
