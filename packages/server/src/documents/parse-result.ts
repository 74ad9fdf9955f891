import type { ParseEventName, ParseResult } from "@svc/contract";
import type { FastifyReply } from "fastify";
import { toRfc3339 } from "../store/ids.ts";
import type { JobRecord, StoredResult } from "./jobs.ts";

/** A job as the API's ParseResult: state always; pages, chunks and usage once successful. */
export function toParseResult(job: JobRecord, stored: StoredResult | null): ParseResult {
  const result: ParseResult = {
    parse_id: job.id,
    status: job.status,
    created_at: toRfc3339(job.createdAt),
    finished_at: job.finishedAt === null ? null : toRfc3339(job.finishedAt),
    error: job.status === "failure" ? job.error : null,
    labels: job.labels ?? {},
    dataset_id: job.datasetId,
    parsed_pages_count: job.parsedPagesCount,
    total_pages: job.totalPages,
  };
  if (job.status === "successful" && stored) {
    result.pages = stored.pages as ParseResult["pages"];
    result.chunks = stored.chunks as ParseResult["chunks"];
    result.usage = stored.usage;
    if (job.kind === "parse") {
      result.page_classes = (stored.page_classes ?? null) as ParseResult["page_classes"];
      result.structured_data = (stored.structured_data ?? null) as ParseResult["structured_data"];
    }
    if (stored.merged_tables) result.merged_tables = stored.merged_tables as ParseResult["merged_tables"];
  }
  return result;
}

/** The SSE event of a job's state. */
export function parseEventOf(job: Pick<JobRecord, "status">): ParseEventName {
  switch (job.status) {
    case "pending":
      return "parse_queued";
    case "processing":
      return "parse_update";
    case "successful":
      return "parse_done";
    case "failure":
      return "parse_failed";
  }
}

/**
 * Has `reply` send its body of parse results as JSON.stringify writes it instead of through the route schema's
 * serializer, which checks the values of the result's unions one by one: about 1 ms a page, 30 to 50 times
 * JSON.stringify (a 616-page result took 0.6 s of the server's event loop per GET). The same JSON value as the
 * schema's (only the key order differs, as in the event stream's, which was always JSON.stringify): a stored
 * result holds nothing the schema leaves out (parse-result.test.ts).
 */
export function sendResultsAsJson(reply: FastifyReply): void {
  reply.serializer(JSON.stringify);
}
