/**
 * # build-store
 *
 * Template build records in the store: what `GET /template-builds` reads on any host, and what a restarted
 * server finds of the builds it was running. The log is kept whole up to `BUILD_LOG_MAX_BYTES` (its newest
 * lines; `log_dropped` counts those dropped from the front).
 */
import type { BuildLogEvent, TemplateBuildStatus } from "@svc/contract";
import type { Db } from "../store/db.ts";

/** A build as stored. */
export interface StoredBuild {
  id: string;
  projectId: string;
  templateName: string;
  status: TemplateBuildStatus;
  error: string | null;
  templateId: string | null;
  steps: number;
  cachedSteps: number;
  warnings: string[];
  /** The host whose server runs the build. */
  hostId: string;
  /** The build sandbox while one runs. */
  sandboxId: string | null;
  log: BuildLogEvent[];
  logDropped: number;
  createdAt: number;
  finishedAt: number | null;
}

export interface BuildStore {
  insert(build: StoredBuild): Promise<void>;
  /** Writes the record's changing fields (status, counts, sandbox, log). */
  save(build: StoredBuild): Promise<void>;
  get(projectId: string, id: string): Promise<StoredBuild | null>;
  /** The project's builds, newest first. */
  list(projectId: string, limit: number): Promise<StoredBuild[]>;
  /** Builds of this host not ended (after a restart, none of them runs any more). */
  unfinished(hostId: string): Promise<StoredBuild[]>;
}

const COLUMNS =
  "id, project_id, template_name, status, error, template_id, steps, cached_steps, warnings, host_id, sandbox_id, log, log_dropped, created_at, finished_at";

function fromRow(row: Record<string, unknown>): StoredBuild {
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    templateName: String(row.template_name),
    status: row.status as TemplateBuildStatus,
    error: (row.error as string | null) ?? null,
    templateId: (row.template_id as string | null) ?? null,
    steps: Number(row.steps),
    cachedSteps: Number(row.cached_steps),
    warnings: JSON.parse(String(row.warnings)) as string[],
    hostId: String(row.host_id),
    sandboxId: (row.sandbox_id as string | null) ?? null,
    log: JSON.parse(String(row.log)) as BuildLogEvent[],
    logDropped: Number(row.log_dropped),
    createdAt: Number(row.created_at),
    finishedAt: row.finished_at === null || row.finished_at === undefined ? null : Number(row.finished_at),
  };
}

export function createBuildStore(db: Db): BuildStore {
  return {
    async insert(b) {
      await db.execute(
        `INSERT INTO template_builds (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          b.id,
          b.projectId,
          b.templateName,
          b.status,
          b.error,
          b.templateId,
          b.steps,
          b.cachedSteps,
          JSON.stringify(b.warnings),
          b.hostId,
          b.sandboxId,
          JSON.stringify(b.log),
          b.logDropped,
          b.createdAt,
          b.finishedAt,
        ],
      );
    },
    async save(b) {
      await db.execute(
        "UPDATE template_builds SET status = ?, error = ?, template_id = ?, steps = ?, cached_steps = ?, warnings = ?, sandbox_id = ?, log = ?, log_dropped = ?, finished_at = ? WHERE id = ?",
        [
          b.status,
          b.error,
          b.templateId,
          b.steps,
          b.cachedSteps,
          JSON.stringify(b.warnings),
          b.sandboxId,
          JSON.stringify(b.log),
          b.logDropped,
          b.finishedAt,
          b.id,
        ],
      );
    },
    async get(projectId, id) {
      const rows = await db.query(`SELECT ${COLUMNS} FROM template_builds WHERE project_id = ? AND id = ?`, [
        projectId,
        id,
      ]);
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async list(projectId, limit) {
      const rows = await db.query(
        `SELECT ${COLUMNS} FROM template_builds WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
        [projectId, limit],
      );
      return rows.map(fromRow);
    },
    async unfinished(hostId) {
      const rows = await db.query(
        `SELECT ${COLUMNS} FROM template_builds WHERE status IN ('pending', 'running') AND host_id = ?`,
        [hostId],
      );
      return rows.map(fromRow);
    },
  };
}
