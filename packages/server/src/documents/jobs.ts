import type {
  CursorPageOf,
  EnrichmentOptions,
  Labels,
  ListParseJobsQuery,
  MimeType,
  PageClassConfig,
  ParseStatus,
  ParseUsage,
  ParsingOptions,
  StructuredExtractionOptions,
} from "@svc/contract";
import type { Db } from "../store/db.ts";
import { type PageQuery, pageClause, toPage } from "./cursor.ts";

export type JobKind = "parse" | "read";

/** Where the document of a job comes from; raw text itself is in the job's `rawText`. */
export type JobSource =
  | { type: "file_id"; fileId: string }
  | { type: "file_url"; url: string }
  | { type: "raw_text" };

/**
 * Everything a job runs with, fixed when it is created: options with their defaults filled and, for a dataset
 * job, the dataset's settings as they were then. Changing a dataset later does not change this.
 */
export interface JobRequest {
  kind: JobKind;
  source: JobSource;
  pageRange: string | null;
  /** The MIME type the request gave; null to use the file's or the download's. */
  mimeType: MimeType | null;
  parsingOptions: Required<ParsingOptions>;
  enrichmentOptions: Required<EnrichmentOptions>;
  structuredExtractionOptions: StructuredExtractionOptions[] | null;
  pageClassifications: PageClassConfig[] | null;
}

export interface JobRecord {
  id: string;
  projectId: string;
  kind: JobKind;
  datasetId: string | null;
  status: ParseStatus;
  request: JobRequest;
  fileName: string | null;
  labels: Labels | null;
  attempts: number;
  leaseOwner: string | null;
  error: string | null;
  totalPages: number | null;
  parsedPagesCount: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

/** A claimed job also carries its raw text, which lists and reads leave out. */
export interface ClaimedJob extends JobRecord {
  rawText: string | null;
}

export interface NewJob {
  id: string;
  projectId: string;
  datasetId: string | null;
  request: JobRequest;
  rawText: string | null;
  fileName: string | null;
  labels: Labels | null;
  createdAt: number;
}

/** The stored output of a successful job: the ParseResult fields a job row does not hold. */
export interface StoredResult {
  pages: unknown[];
  chunks: unknown[];
  usage: ParseUsage;
  page_classes?: unknown[] | null;
  structured_data?: unknown[] | null;
  merged_tables?: unknown[];
}

interface JobRow {
  id: string;
  project_id: string;
  kind: string;
  dataset_id: string | null;
  status: string;
  request: string;
  file_name: string | null;
  labels: string | null;
  attempts: number;
  lease_owner: string | null;
  error: string | null;
  total_pages: number | null;
  parsed_pages_count: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  raw_text?: string | null;
  result?: string | null;
}

/** Columns of a job without its raw text. */
const COLUMNS =
  "id, project_id, kind, dataset_id, status, request, file_name, labels, attempts, lease_owner, error, total_pages, parsed_pages_count, created_at, started_at, finished_at";
const J_COLUMNS = COLUMNS.split(", ")
  .map((column) => `j.${column}`)
  .join(", ");

const num = (value: number | null) => (value === null ? null : Number(value));

function toRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind as JobKind,
    datasetId: row.dataset_id,
    status: row.status as ParseStatus,
    request: JSON.parse(row.request) as JobRequest,
    fileName: row.file_name,
    labels: row.labels === null ? null : (JSON.parse(row.labels) as Labels),
    attempts: Number(row.attempts),
    leaseOwner: row.lease_owner,
    error: row.error,
    totalPages: num(row.total_pages),
    parsedPagesCount: Number(row.parsed_pages_count),
    createdAt: Number(row.created_at),
    startedAt: num(row.started_at),
    finishedAt: num(row.finished_at),
  };
}

export interface JobWithResult {
  job: JobRecord;
  result: StoredResult | null;
}

export interface JobListFilters extends PageQuery {
  status?: ParseStatus;
  datasetId?: string;
  /** Only jobs of the live dataset of this name. */
  datasetName?: string;
  filename?: string;
  createdAfter?: number;
  createdBefore?: number;
  finishedAfter?: number;
  finishedBefore?: number;
}

export interface JobCounts {
  pending: number;
  processing: number;
  successful: number;
  failure: number;
}

export interface JobRepository {
  create(job: NewJob): Promise<JobRecord>;
  /** The project's job, or undefined. */
  get(projectId: string, id: string): Promise<JobRecord | undefined>;
  /** A job by id alone (workers), or undefined. */
  getById(id: string): Promise<JobRecord | undefined>;
  /** The job and, when successful, its stored result. */
  getWithResult(projectId: string, id: string): Promise<JobWithResult | undefined>;
  /** A page of the project's jobs with their results, newest first; `limit + 1` rows are read to know has_more. */
  list(projectId: string, filters: JobListFilters): Promise<CursorPageOf<JobWithResult>>;
  /** Deletes the job and its result; false when there is none. A worker running it loses its lease. */
  delete(projectId: string, id: string): Promise<boolean>;
  /**
   * Claims one job for `owner` until `now + leaseMs`: first a job whose lease expired (its worker died) and that
   * has claims left, then the oldest pending one. Counts the claim in `attempts`. One statement, safe when many
   * workers and hosts claim at once (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite serializes writers).
   */
  claim(owner: string, leaseMs: number, maxAttempts: number): Promise<ClaimedJob | undefined>;
  /** Ends as `failure` the jobs whose lease expired after `maxAttempts` claims, and returns them. */
  failExhausted(maxAttempts: number): Promise<JobRecord[]>;
  /** Extends the lease; false when the job is no longer this owner's (deleted, or claimed again after expiry). */
  heartbeat(id: string, owner: string, leaseMs: number): Promise<boolean>;
  /** Stores the result and ends the job `successful`, if the owner still holds it. */
  complete(
    id: string,
    owner: string,
    output: { result: StoredResult; totalPages: number; parsedPagesCount: number },
  ): Promise<JobRecord | undefined>;
  /** Ends the job `failure` with a reason, if the owner still holds it. */
  fail(id: string, owner: string, reason: string): Promise<JobRecord | undefined>;
  /**
   * Gives a job back to the queue (`pending`, lease cleared). `refundAttempt` takes back the claim's count: for a
   * worker that stops on purpose (shutdown), not for one that died.
   */
  release(id: string, owner: string, refundAttempt: boolean): Promise<boolean>;
  /** Jobs of a dataset by status. */
  countByStatus(datasetId: string): Promise<JobCounts>;
}

export function createJobRepository(db: Db, now: () => number = Date.now): JobRepository {
  const skipLocked = db.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";

  async function claimWhere(condition: string, params: (string | number)[], owner: string, leaseMs: number) {
    const at = now();
    const [row] = await db.query<JobRow>(
      `UPDATE parse_jobs SET status = 'processing', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1,
         started_at = COALESCE(started_at, ?), updated_at = ?
       WHERE id = (SELECT id FROM parse_jobs WHERE ${condition} ORDER BY created_at, id LIMIT 1${skipLocked})
       RETURNING ${COLUMNS}, raw_text`,
      [owner, at + leaseMs, at, at, ...params],
    );
    return row ? { ...toRecord(row), rawText: row.raw_text ?? null } : undefined;
  }

  return {
    async create(job) {
      await db.execute(
        `INSERT INTO parse_jobs (id, project_id, kind, dataset_id, status, request, file_id, file_url, raw_text, file_name,
           mime_type, labels, attempts, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
        [
          job.id,
          job.projectId,
          job.request.kind,
          job.datasetId,
          JSON.stringify(job.request),
          job.request.source.type === "file_id" ? job.request.source.fileId : null,
          job.request.source.type === "file_url" ? job.request.source.url : null,
          job.rawText,
          job.fileName,
          job.request.mimeType,
          job.labels ? JSON.stringify(job.labels) : null,
          job.createdAt,
          job.createdAt,
        ],
      );
      return {
        id: job.id,
        projectId: job.projectId,
        kind: job.request.kind,
        datasetId: job.datasetId,
        status: "pending",
        request: job.request,
        fileName: job.fileName,
        labels: job.labels,
        attempts: 0,
        leaseOwner: null,
        error: null,
        totalPages: null,
        parsedPagesCount: 0,
        createdAt: job.createdAt,
        startedAt: null,
        finishedAt: null,
      };
    },
    async get(projectId, id) {
      const [row] = await db.query<JobRow>(
        `SELECT ${COLUMNS} FROM parse_jobs WHERE project_id = ? AND id = ?`,
        [projectId, id],
      );
      return row ? toRecord(row) : undefined;
    },
    async getById(id) {
      const [row] = await db.query<JobRow>(`SELECT ${COLUMNS} FROM parse_jobs WHERE id = ?`, [id]);
      return row ? toRecord(row) : undefined;
    },
    async getWithResult(projectId, id) {
      const [row] = await db.query<JobRow>(
        `SELECT ${J_COLUMNS}, r.result FROM parse_jobs j LEFT JOIN parse_results r ON r.job_id = j.id
         WHERE j.project_id = ? AND j.id = ?`,
        [projectId, id],
      );
      if (!row) return undefined;
      return { job: toRecord(row), result: row.result ? (JSON.parse(row.result) as StoredResult) : null };
    },
    async list(projectId, filters) {
      const limit = filters.limit ?? 100;
      const page = pageClause(filters, "j");
      const where = ["j.project_id = ?", page.where];
      const params: (string | number)[] = [projectId, ...page.params];
      if (filters.status) {
        where.push("j.status = ?");
        params.push(filters.status);
      }
      if (filters.datasetId) {
        where.push("j.dataset_id = ?");
        params.push(filters.datasetId);
      }
      if (filters.datasetName) {
        where.push(
          "j.dataset_id IN (SELECT d.id FROM datasets d WHERE d.project_id = ? AND d.name = ? AND d.deleted_at IS NULL)",
        );
        params.push(projectId, filters.datasetName);
      }
      if (filters.filename) {
        where.push("j.file_name = ?");
        params.push(filters.filename);
      }
      if (filters.createdAfter !== undefined) {
        where.push("j.created_at > ?");
        params.push(filters.createdAfter);
      }
      if (filters.createdBefore !== undefined) {
        where.push("j.created_at < ?");
        params.push(filters.createdBefore);
      }
      if (filters.finishedAfter !== undefined) {
        where.push("j.finished_at > ?");
        params.push(filters.finishedAfter);
      }
      if (filters.finishedBefore !== undefined) {
        where.push("j.finished_at < ?");
        params.push(filters.finishedBefore);
      }
      const rows = await db.query<JobRow>(
        `SELECT ${J_COLUMNS}, r.result FROM parse_jobs j LEFT JOIN parse_results r ON r.job_id = j.id
         WHERE ${where.join(" AND ")} ORDER BY ${page.order} LIMIT ?`,
        [...params, limit + 1],
      );
      return toPage(rows, filters, limit, (row) => ({
        job: toRecord(row),
        result: row.result ? (JSON.parse(row.result) as StoredResult) : null,
      }));
    },
    async delete(projectId, id) {
      return db.transaction(async (tx) => {
        const { rowCount } = await tx.execute("DELETE FROM parse_jobs WHERE project_id = ? AND id = ?", [
          projectId,
          id,
        ]);
        if (rowCount > 0) await tx.execute("DELETE FROM parse_results WHERE job_id = ?", [id]);
        return rowCount > 0;
      });
    },
    async claim(owner, leaseMs, maxAttempts) {
      return (
        (await claimWhere(
          "status = 'processing' AND lease_expires_at < ? AND attempts < ?",
          [now(), maxAttempts],
          owner,
          leaseMs,
        )) ?? (await claimWhere("status = 'pending'", [], owner, leaseMs))
      );
    },
    async failExhausted(maxAttempts) {
      const at = now();
      const rows = await db.query<JobRow>(
        `UPDATE parse_jobs SET status = 'failure',
           error = 'The job ended its worker ' || attempts || ' times (the worker crashed, ran out of memory or was stopped before finishing)',
           finished_at = ?, updated_at = ?, lease_owner = NULL, lease_expires_at = NULL
         WHERE status = 'processing' AND lease_expires_at < ? AND attempts >= ?
         RETURNING ${COLUMNS}`,
        [at, at, at, maxAttempts],
      );
      return rows.map(toRecord);
    },
    async heartbeat(id, owner, leaseMs) {
      const at = now();
      const { rowCount } = await db.execute(
        "UPDATE parse_jobs SET lease_expires_at = ?, updated_at = ? WHERE id = ? AND lease_owner = ? AND status = 'processing'",
        [at + leaseMs, at, id, owner],
      );
      return rowCount > 0;
    },
    async complete(id, owner, output) {
      const at = now();
      const [row] = await db.query<JobRow>(
        `UPDATE parse_jobs SET status = 'successful', finished_at = ?, updated_at = ?, lease_owner = NULL,
           lease_expires_at = NULL, error = NULL, total_pages = ?, parsed_pages_count = ?
         WHERE id = ? AND lease_owner = ? AND status = 'processing' RETURNING ${COLUMNS}`,
        [at, at, output.totalPages, output.parsedPagesCount, id, owner],
      );
      if (!row) return undefined;
      await db.execute(
        "INSERT INTO parse_results (job_id, result) VALUES (?, ?) ON CONFLICT (job_id) DO UPDATE SET result = excluded.result",
        [id, JSON.stringify(output.result)],
      );
      return toRecord(row);
    },
    async fail(id, owner, reason) {
      const at = now();
      const [row] = await db.query<JobRow>(
        `UPDATE parse_jobs SET status = 'failure', finished_at = ?, updated_at = ?, lease_owner = NULL,
           lease_expires_at = NULL, error = ?
         WHERE id = ? AND lease_owner = ? AND status = 'processing' RETURNING ${COLUMNS}`,
        [at, at, reason, id, owner],
      );
      return row ? toRecord(row) : undefined;
    },
    async release(id, owner, refundAttempt) {
      const { rowCount } = await db.execute(
        `UPDATE parse_jobs SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = ?,
           attempts = attempts - ?
         WHERE id = ? AND lease_owner = ? AND status = 'processing'`,
        [now(), refundAttempt ? 1 : 0, id, owner],
      );
      return rowCount > 0;
    },
    async countByStatus(datasetId) {
      const rows = await db.query<{ status: string; count: number }>(
        "SELECT status, COUNT(*) AS count FROM parse_jobs WHERE dataset_id = ? GROUP BY status",
        [datasetId],
      );
      const counts: JobCounts = { pending: 0, processing: 0, successful: 0, failure: 0 };
      for (const row of rows) counts[row.status as keyof JobCounts] = Number(row.count);
      return counts;
    },
  };
}

/** Filters of the list routes (jobs, a dataset's data) in repository terms. */
export function jobListFilters(
  query: Omit<ListParseJobsQuery, "dataset_name"> & { dataset_name?: string; file_name?: string },
): JobListFilters {
  const time = (value: string | undefined) => (value === undefined ? undefined : Date.parse(value));
  return {
    cursor: query.cursor,
    direction: query.direction,
    limit: query.limit,
    status: query.status,
    datasetName: query.dataset_name,
    filename: query.filename ?? query.file_name,
    createdAfter: time(query.created_after),
    createdBefore: time(query.created_before),
    finishedAfter: time(query.finished_after),
    finishedBefore: time(query.finished_before),
  };
}
