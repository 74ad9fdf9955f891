import path from "node:path";
import type { documentRoutes } from "@svc/contract";
import type { FastifyInstance } from "fastify";
import type { Handlers } from "../api/routes.ts";
import type { Db } from "../store/db.ts";
import { type BlobStore, databaseBlobStore, diskBlobStore } from "./blob-store.ts";
import { datasetHandlers } from "./dataset-routes.ts";
import { createDatasetRepository } from "./datasets.ts";
import { acceptStreamedMultipart, fileHandlers } from "./file-routes.ts";
import { createFileRepository } from "./files.ts";
import { JobEvents } from "./job-events.ts";
import { createJobRepository } from "./jobs.ts";
import { type ModelProviders, NO_MODEL_PROVIDERS } from "./model-providers.ts";
import { type ParseDeps, parseHandlers } from "./parse-routes.ts";
import { type DocumentsSettings, documentsSettings } from "./settings.ts";
import type { AddressGuard } from "./url-fetch.ts";
import { JobWorkers } from "./workers.ts";

export { type ModelProviders, modelProvidersOf } from "./model-providers.ts";
export { DOCUMENTS_DEFAULTS, type DocumentsSettings, documentsSettings } from "./settings.ts";

export interface DocumentsDeps {
  db: Db;
  /** The server's data directory: blobs go to `<dataDir>/blobs` unless the store is PostgreSQL. */
  dataDir: string;
  settings?: Partial<DocumentsSettings>;
  /** The configured model providers (see model-providers.ts); none by default: every feature runs offline. */
  modelProviders?: ModelProviders;
  log: { error(object: unknown, message: string): void; warn?(object: unknown, message: string): void };
  /** Called when webhook events were queued (the webhook dispatcher's wake). */
  onWebhookQueued?: () => void;
  /** Test hook: which non-public addresses file_url may reach. */
  urlGuard?: AddressGuard;
  /** Enables the parse thread's test hooks; by default, SVC_TEST_PARSE_HOOKS=1 in the environment. */
  testHooks?: boolean;
  now?: () => number;
}

/** What a server passes: settings, and the test hooks. */
export type DocumentsOptions = Partial<DocumentsSettings> & Pick<DocumentsDeps, "urlGuard" | "testHooks">;

export interface Documents {
  settings: DocumentsSettings;
  blobs: BlobStore;
  /** Handlers of the files, parse and dataset routes (webhook routes are webhooks/'s). */
  handlers: Handlers<typeof documentRoutes>;
  workers: JobWorkers;
  /** Accepts streamed uploads, starts the workers, and stops both with the app. */
  install(app: FastifyInstance): void;
}

/** How old a partial upload must be before a start removes it. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** The documents service: files, parse and read jobs, datasets, and the workers that run the jobs. */
export function createDocuments(deps: DocumentsDeps): Documents {
  const settings = documentsSettings(deps.settings);
  const now = deps.now ?? Date.now;
  const { db } = deps;
  const blobs =
    db.dialect === "postgres" ? databaseBlobStore(db, now) : diskBlobStore(path.join(deps.dataDir, "blobs"));
  const events = new JobEvents();
  const providers = deps.modelProviders ?? NO_MODEL_PROVIDERS;
  const files = createFileRepository(db);
  const streams = new Set<() => void>();
  const parse: ParseDeps = {
    db,
    jobs: createJobRepository(db, now),
    files,
    events,
    streams,
    streamPollMs: Math.min(settings.pollIntervalMs, 1000),
    onWebhookQueued: deps.onWebhookQueued,
    providers,
    now,
  };
  const workers = new JobWorkers({
    db,
    blobs,
    settings,
    events,
    log: deps.log,
    onWebhookQueued: deps.onWebhookQueued,
    urlGuard: deps.urlGuard,
    testHooks: deps.testHooks ?? process.env.SVC_TEST_PARSE_HOOKS === "1",
    providers,
    now,
  });
  return {
    settings,
    blobs,
    workers,
    handlers: {
      ...fileHandlers({ files, blobs, maxFileBytes: settings.maxFileBytes, now }),
      ...parseHandlers(parse),
      ...datasetHandlers({ datasets: createDatasetRepository(db, now), parse }),
    },
    install(app) {
      acceptStreamedMultipart(app);
      app.addHook("onReady", async () => {
        await blobs
          .sweep(STALE_UPLOAD_MS)
          .catch((error) => deps.log.error({ err: error }, "could not sweep partial uploads"));
        workers.start();
      });
      app.addHook("preClose", async () => {
        for (const end of streams) end();
      });
      app.addHook("onClose", () => workers.stop());
    },
  };
}
