import {
  type DatasetParseRequest,
  type documentRoutes,
  encodeSseComment,
  encodeSseEvent,
  type ParseJob,
  ServiceError,
  SSE_CONTENT_TYPE,
  SSE_HEADERS,
} from "@svc/contract";
import type { FastifyReply } from "fastify";
import type { Handlers } from "../api/routes.ts";
import type { Db } from "../store/db.ts";
import { newId, toRfc3339 } from "../store/ids.ts";
import type { DatasetSettings } from "./datasets.ts";
import type { FileRepository } from "./files.ts";
import type { JobEvents } from "./job-events.ts";
import { checkRequest, jobRequest, settingsWithDefaults, urlFileName } from "./job-request.ts";
import { createJobRepository, type JobKind, type JobRepository, jobListFilters } from "./jobs.ts";
import { checkModelProviders, type ModelProviders, visionTaskOf } from "./model-providers.ts";
import { parseEventOf, sendResultsAsJson, toParseResult } from "./parse-result.ts";
import { notifyJobEvent } from "./webhooks/index.ts";
import { webhookPayload } from "./workers.ts";

type ParseRoutes = Pick<
  typeof documentRoutes,
  | "parseDocument"
  | "readDocument"
  | "extractDocument"
  | "classifyDocument"
  | "editDocument"
  | "getParseResult"
  | "listParseJobs"
  | "deleteParseJob"
>;

export interface ParseDeps {
  db: Db;
  jobs: JobRepository;
  files: FileRepository;
  events: JobEvents;
  /** Open event streams; each function ends its stream (server shutdown). */
  streams: Set<() => void>;
  /** How often an event stream re-reads its job when nothing in this process signalled a change. */
  streamPollMs: number;
  onWebhookQueued?: () => void;
  /** The configured model providers a request's model_provider may name. */
  providers: ModelProviders;
  now: () => number;
}

/** How often an idle event stream sends a comment, so proxies keep the connection open. */
const KEEPALIVE_MS = 15_000;

/**
 * Queues a parse or read job: checks the request, resolves the file, records the request snapshot and queues the
 * `created` webhook event with the job, in one transaction.
 */
export async function createJob(
  deps: ParseDeps,
  input: {
    projectId: string;
    kind: JobKind;
    body: DatasetParseRequest;
    settings: DatasetSettings;
    datasetId: string | null;
  },
): Promise<ParseJob> {
  const { body } = input;
  checkRequest(body);
  // Every job reads pages with the ocr_model it names; parse jobs also run their extractions' providers.
  if (input.kind === "parse") checkModelProviders(deps.providers, input.settings);
  else visionTaskOf(deps.providers, input.settings.parsing_options);
  let fileName: string | null = null;
  if (body.file_id) {
    const file = await deps.files.get(input.projectId, body.file_id);
    if (!file) throw new ServiceError("ENTITY_NOT_FOUND", `No file ${body.file_id}`);
    fileName = body.file_name ?? file.fileName;
  } else if (body.file_url) {
    fileName = urlFileName(body.file_url);
  }
  const createdAt = deps.now();
  const job = await deps.db.transaction(async (tx) => {
    const created = await createJobRepository(tx, deps.now).create({
      id: newId("parse"),
      projectId: input.projectId,
      datasetId: input.datasetId,
      request: jobRequest(input.kind, body, input.settings),
      rawText: body.raw_text ?? null,
      fileName,
      labels: body.labels ?? null,
      createdAt,
    });
    await notifyJobEvent(
      tx,
      {
        projectId: input.projectId,
        event: "document_ingestion.job.created",
        payload: webhookPayload(created),
      },
      deps.now,
    );
    return created;
  });
  deps.events.queued();
  deps.onWebhookQueued?.();
  return { parse_id: job.id, created_at: toRfc3339(job.createdAt) };
}

/** Streams a job's states as server-sent events until it ends, the client leaves, or the server stops. */
async function streamJob(
  deps: ParseDeps,
  reply: FastifyReply,
  projectId: string,
  id: string,
): Promise<FastifyReply> {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, SSE_HEADERS);
  let closed = false;
  let wake: (() => void) | null = null;
  const end = () => {
    if (closed) return;
    closed = true;
    wake?.();
    res.end();
  };
  res.on("close", end);
  deps.streams.add(end);
  const unsubscribe = deps.events.onChanged(id, () => wake?.());
  let lastSent = "";
  let lastWrite = Date.now();
  try {
    while (!closed) {
      const found = await deps.jobs.getWithResult(projectId, id);
      if (!found) break;
      const event = parseEventOf(found.job);
      const state = `${found.job.status}/${found.job.attempts}`;
      if (state !== lastSent) {
        lastSent = state;
        res.write(encodeSseEvent({ event, data: toParseResult(found.job, found.result) }));
        lastWrite = Date.now();
      } else if (Date.now() - lastWrite >= KEEPALIVE_MS) {
        res.write(encodeSseComment());
        lastWrite = Date.now();
      }
      if (event === "parse_done" || event === "parse_failed") break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, deps.streamPollMs);
        function done() {
          clearTimeout(timer);
          wake = null;
          resolve();
        }
        wake = done;
      });
    }
  } finally {
    unsubscribe();
    deps.streams.delete(end);
    end();
  }
  return reply;
}

export function parseHandlers(deps: ParseDeps): Handlers<ParseRoutes> {
  const { jobs } = deps;
  return {
    parseDocument: ({ body, auth }) =>
      createJob(deps, {
        projectId: auth.projectId,
        kind: "parse",
        body,
        settings: settingsWithDefaults(body),
        datasetId: null,
      }),
    readDocument: ({ body, auth }) =>
      createJob(deps, {
        projectId: auth.projectId,
        kind: "read",
        body,
        settings: settingsWithDefaults(body),
        datasetId: null,
      }),
    // Extract and classify are parse jobs that run only what they name; their results read as any parse's.
    extractDocument({ body, auth }) {
      if (body.structured_extraction_options.length === 0) {
        throw new ServiceError(
          "INVALID_JSON_SCHEMA",
          "structured_extraction_options names no schema to extract",
        );
      }
      return createJob(deps, {
        projectId: auth.projectId,
        kind: "parse",
        body,
        settings: settingsWithDefaults(body),
        datasetId: null,
      });
    },
    classifyDocument({ body, auth }) {
      if (body.page_classifications.length === 0) {
        throw new ServiceError("INVALID_PAGE_CLASSIFICATION", "page_classifications names no page class");
      }
      return createJob(deps, {
        projectId: auth.projectId,
        kind: "parse",
        body,
        settings: settingsWithDefaults(body),
        datasetId: null,
      });
    },
    editDocument() {
      throw new ServiceError(
        "NOT_IMPLEMENTED",
        "Form filling (edit) is not offered by this server: it parses, reads, extracts and classifies documents",
      );
    },
    async getParseResult({ params, auth, request, reply }) {
      const found = await jobs.getWithResult(auth.projectId, params.parse_id);
      if (!found) throw new ServiceError("ENTITY_NOT_FOUND", `No parse job ${params.parse_id}`);
      if ((request.headers.accept ?? "").includes(SSE_CONTENT_TYPE)) {
        return streamJob(deps, reply, auth.projectId, params.parse_id);
      }
      sendResultsAsJson(reply);
      return toParseResult(found.job, found.result);
    },
    async listParseJobs({ query, auth, reply }) {
      const page = await jobs.list(auth.projectId, jobListFilters(query));
      sendResultsAsJson(reply);
      return { ...page, items: page.items.map(({ job, result }) => toParseResult(job, result)) };
    },
    async deleteParseJob({ params, auth }) {
      if (!(await jobs.delete(auth.projectId, params.parse_id))) {
        throw new ServiceError("ENTITY_NOT_FOUND", `No parse job ${params.parse_id}`);
      }
      deps.events.changed(params.parse_id);
    },
  };
}
