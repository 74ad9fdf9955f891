import type { Template, TemplateConfig } from "@svc/contract";
import type { Db } from "../store/db.ts";
import { isUniqueViolation } from "../store/db.ts";
import { newId } from "../store/ids.ts";

/** A template as stored. Its root disk is its snapshot's (source snapshot) or its own (source tree, by its id). */
export interface TemplateRow {
  id: string;
  projectId: string;
  name: string;
  /** The image as the user named it (shown as given). */
  baseImage: string;
  /**
   * The image pinned to the digest resolved when the template was made (image-reference.ts pinImage): what its
   * sandboxes start from, whatever the tag points at later. Null for a template made before pinning (its
   * sandboxes start from baseImage) or of an image with nothing to pin.
   */
  pinnedImage: string | null;
  source: "snapshot" | "tree";
  snapshotId: string | null;
  sizeBytes: number | null;
  /** Process defaults a Dockerfile build left (ENV, WORKDIR, USER...); null for other templates. */
  config: TemplateConfig | null;
  createdAt: number;
}

export interface TemplateRepository {
  /** Null when the project already has a template of that name. */
  create(
    row: Omit<TemplateRow, "id" | "createdAt" | "config" | "pinnedImage"> & {
      config?: TemplateConfig | null;
      pinnedImage?: string | null;
    },
    id?: string,
  ): Promise<TemplateRow | null>;
  /** By id or name, within the project. */
  find(projectId: string, idOrName: string): Promise<TemplateRow | null>;
  list(projectId: string): Promise<TemplateRow[]>;
  /** Templates made from this snapshot (which then cannot be deleted). */
  ofSnapshot(snapshotId: string): Promise<TemplateRow[]>;
  remove(id: string): Promise<void>;
}

/** The image a template's or snapshot's sandboxes start from: the pinned one, else (rows made before) the reference. */
export function startImage(row: { baseImage: string; pinnedImage: string | null }): string {
  return row.pinnedImage ?? row.baseImage;
}

/** The root disk a template's sandboxes start from: its snapshot's, or its own. */
export function templateDisk(row: TemplateRow): string {
  return row.snapshotId ?? row.id;
}

export function newTemplateId(): string {
  return newId("tmpl");
}

export function toTemplate(row: TemplateRow, namespace: string): Template {
  return {
    template_id: row.id,
    name: row.name,
    namespace,
    base_image: row.baseImage,
    source: row.source,
    snapshot_id: row.snapshotId,
    size_bytes: row.sizeBytes,
    config: row.config,
    created_at: row.createdAt,
  };
}

const COLUMNS =
  "id, project_id, name, base_image, source, snapshot_id, size_bytes, config, created_at, pinned_image";

function fromRow(row: Record<string, unknown>): TemplateRow {
  return {
    id: String(row.id),
    projectId: String(row.project_id),
    name: String(row.name),
    baseImage: String(row.base_image),
    pinnedImage: typeof row.pinned_image === "string" ? row.pinned_image : null,
    source: row.source as TemplateRow["source"],
    snapshotId: (row.snapshot_id as string | null) ?? null,
    sizeBytes: row.size_bytes === null || row.size_bytes === undefined ? null : Number(row.size_bytes),
    config: typeof row.config === "string" ? (JSON.parse(row.config) as TemplateConfig) : null,
    createdAt: Number(row.created_at),
  };
}

export function createTemplateRepository(db: Db): TemplateRepository {
  const select = `SELECT ${COLUMNS} FROM sandbox_templates`;
  return {
    async create(fields, id = newTemplateId()) {
      const row: TemplateRow = {
        ...fields,
        config: fields.config ?? null,
        pinnedImage: fields.pinnedImage ?? null,
        id,
        createdAt: Date.now(),
      };
      try {
        await db.execute(`INSERT INTO sandbox_templates (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
          row.id,
          row.projectId,
          row.name,
          row.baseImage,
          row.source,
          row.snapshotId,
          row.sizeBytes,
          row.config === null ? null : JSON.stringify(row.config),
          row.createdAt,
          row.pinnedImage,
        ]);
      } catch (error) {
        if (isUniqueViolation(error)) return null;
        throw error;
      }
      return row;
    },
    async find(projectId, idOrName) {
      const rows = await db.query(`${select} WHERE project_id = ? AND (id = ? OR name = ?)`, [
        projectId,
        idOrName,
        idOrName,
      ]);
      return rows[0] ? fromRow(rows[0]) : null;
    },
    async list(projectId) {
      return (await db.query(`${select} WHERE project_id = ? ORDER BY created_at, id`, [projectId])).map(
        fromRow,
      );
    },
    async ofSnapshot(snapshotId) {
      return (await db.query(`${select} WHERE snapshot_id = ?`, [snapshotId])).map(fromRow);
    },
    async remove(id) {
      await db.execute("DELETE FROM sandbox_templates WHERE id = ?", [id]);
    },
  };
}

/**
 * What a sandbox from a Dockerfile-built template runs at start: the Dockerfile's ENTRYPOINT followed by its CMD;
 * undefined when it set neither (the base image's own then run, as Docker inherits them).
 */
export function templateCommand(config: TemplateConfig | null | undefined): string[] | undefined {
  if (!config?.entrypoint && !config?.cmd) return undefined;
  return [...(config.entrypoint ?? []), ...(config.cmd ?? [])];
}
