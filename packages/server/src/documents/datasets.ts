import {
  type CursorPageOf,
  type DatasetStatus,
  type EnrichmentOptions,
  type PageClassConfig,
  type ParsingOptions,
  ServiceError,
  type StructuredExtractionOptions,
} from "@svc/contract";
import type { Db } from "../store/db.ts";
import { type PageQuery, pageClause, toPage } from "./cursor.ts";

/** The parse settings a dataset stores and its jobs copy when they are created. */
export interface DatasetSettings {
  parsing_options: Required<ParsingOptions>;
  enrichment_options: Required<EnrichmentOptions>;
  structured_extraction_options: StructuredExtractionOptions[] | null;
  page_classifications: PageClassConfig[] | null;
}

export interface DatasetRecord {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  settings: DatasetSettings;
  /** `processing` while one of its jobs is pending or processing. */
  status: DatasetStatus;
  createdAt: number;
  updatedAt: number;
}

interface DatasetRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  settings: string;
  busy: number;
  created_at: number;
  updated_at: number;
}

function toRecord(row: DatasetRow): DatasetRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    description: row.description,
    settings: JSON.parse(row.settings) as DatasetSettings,
    status: Number(row.busy) > 0 ? "processing" : "idle",
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

const SELECT = `SELECT d.id, d.project_id, d.name, d.description, d.settings, d.created_at, d.updated_at,
  (CASE WHEN EXISTS (SELECT 1 FROM parse_jobs j WHERE j.dataset_id = d.id AND j.status IN ('pending', 'processing'))
   THEN 1 ELSE 0 END) AS busy
  FROM datasets d`;

/** A unique index refused the row: SQLite's message or PostgreSQL's SQLSTATE 23505. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === "23505" || /UNIQUE constraint failed/i.test(e?.message ?? "");
}

function nameTaken(name: string): ServiceError {
  return new ServiceError(
    "ENTITY_ALREADY_EXISTS",
    `A dataset named ${JSON.stringify(name)} already exists in this project`,
  );
}

export interface DatasetListFilters extends PageQuery {
  status?: DatasetStatus;
  name?: string;
}

export interface DatasetPatch {
  name?: string;
  description?: string | null;
  settings?: DatasetSettings;
}

export interface DatasetRepository {
  /** ENTITY_ALREADY_EXISTS when a live dataset of the project has the name. */
  create(input: {
    id: string;
    projectId: string;
    name: string;
    description: string | null;
    settings: DatasetSettings;
  }): Promise<DatasetRecord>;
  get(projectId: string, id: string): Promise<DatasetRecord | undefined>;
  list(projectId: string, filters: DatasetListFilters): Promise<CursorPageOf<DatasetRecord>>;
  /** Undefined when there is no such live dataset; ENTITY_ALREADY_EXISTS on a rename to a taken name. */
  update(projectId: string, id: string, patch: DatasetPatch): Promise<DatasetRecord | undefined>;
  /** Marks the dataset deleted (its name is free again; its jobs and results stay). False when there is none. */
  delete(projectId: string, id: string): Promise<boolean>;
}

export function createDatasetRepository(db: Db, now: () => number = Date.now): DatasetRepository {
  const get = async (projectId: string, id: string) => {
    const [row] = await db.query<DatasetRow>(
      `${SELECT} WHERE d.project_id = ? AND d.id = ? AND d.deleted_at IS NULL`,
      [projectId, id],
    );
    return row ? toRecord(row) : undefined;
  };
  return {
    async create(input) {
      const at = now();
      try {
        await db.execute(
          `INSERT INTO datasets (id, project_id, name, description, settings, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [input.id, input.projectId, input.name, input.description, JSON.stringify(input.settings), at, at],
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw nameTaken(input.name);
        throw error;
      }
      return { ...input, status: "idle", createdAt: at, updatedAt: at };
    },
    get,
    async list(projectId, filters) {
      const limit = filters.limit ?? 25;
      const page = pageClause(filters, "d");
      const where = ["d.project_id = ?", "d.deleted_at IS NULL", page.where];
      const params: (string | number)[] = [projectId, ...page.params];
      if (filters.name) {
        where.push("d.name = ?");
        params.push(filters.name);
      }
      const busy =
        "EXISTS (SELECT 1 FROM parse_jobs j WHERE j.dataset_id = d.id AND j.status IN ('pending', 'processing'))";
      if (filters.status === "processing") where.push(busy);
      if (filters.status === "idle") where.push(`NOT ${busy}`);
      const rows = await db.query<DatasetRow>(
        `${SELECT} WHERE ${where.join(" AND ")} ORDER BY ${page.order} LIMIT ?`,
        [...params, limit + 1],
      );
      return toPage(rows, filters, limit, toRecord);
    },
    async update(projectId, id, patch) {
      const current = await get(projectId, id);
      if (!current) return undefined;
      const next = {
        name: patch.name ?? current.name,
        description: patch.description === undefined ? current.description : patch.description,
        settings: patch.settings ?? current.settings,
      };
      try {
        const { rowCount } = await db.execute(
          "UPDATE datasets SET name = ?, description = ?, settings = ?, updated_at = ? WHERE project_id = ? AND id = ? AND deleted_at IS NULL",
          [next.name, next.description, JSON.stringify(next.settings), now(), projectId, id],
        );
        if (rowCount === 0) return undefined;
      } catch (error) {
        if (isUniqueViolation(error)) throw nameTaken(next.name);
        throw error;
      }
      return get(projectId, id);
    },
    async delete(projectId, id) {
      const at = now();
      const { rowCount } = await db.execute(
        "UPDATE datasets SET deleted_at = ?, updated_at = ? WHERE project_id = ? AND id = ? AND deleted_at IS NULL",
        [at, at, projectId, id],
      );
      return rowCount > 0;
    },
  };
}
