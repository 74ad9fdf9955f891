import { type Project, ServiceError } from "@svc/contract";
import type { Db } from "./db.ts";
import { newId, toRfc3339 } from "./ids.ts";

export interface Organization {
  id: string;
  name: string;
  created_at: string;
}

export interface ProjectRepository {
  /** The organization with this name, created if missing. */
  ensureOrganization(name: string): Promise<Organization>;
  /** Creates a project; `PROJECT_EXISTS` when the organization already has one with this name. */
  create(organizationId: string, name: string): Promise<Project>;
  /**
   * The project with this id, else the one with this name (in `organizationId` when given; else the oldest
   * with the name, since names are unique per organization only), else null.
   */
  get(idOrName: string, organizationId?: string): Promise<Project | null>;
  /** Projects, oldest first; of one organization when given. */
  list(organizationId?: string): Promise<Project[]>;
}

interface ProjectRow {
  id: string;
  organization_id: string;
  name: string;
  created_at: number;
}

const COLUMNS = "id, organization_id, name, created_at";

function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    organization_id: row.organization_id,
    created_at: toRfc3339(row.created_at),
  };
}

export function createProjectRepository(db: Db, now: () => number = Date.now): ProjectRepository {
  return {
    async ensureOrganization(name) {
      await db.execute(
        "INSERT INTO organizations (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (name) DO NOTHING",
        [newId("org"), name, now()],
      );
      const [row] = await db.query<{ id: string; name: string; created_at: number }>(
        "SELECT id, name, created_at FROM organizations WHERE name = ?",
        [name],
      );
      return { id: row.id, name: row.name, created_at: toRfc3339(row.created_at) };
    },

    async create(organizationId, name) {
      // ON CONFLICT DO NOTHING instead of catching the driver's unique-violation error, whose shape differs.
      const [row] = await db.query<ProjectRow>(
        `INSERT INTO projects (id, organization_id, name, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (organization_id, name) DO NOTHING RETURNING ${COLUMNS}`,
        [newId("proj"), organizationId, name, now()],
      );
      if (!row) throw new ServiceError("PROJECT_EXISTS", `A project named ${name} already exists`);
      return toProject(row);
    },

    async get(idOrName, organizationId) {
      const [byId] = await db.query<ProjectRow>(`SELECT ${COLUMNS} FROM projects WHERE id = ?`, [idOrName]);
      if (byId && (organizationId === undefined || byId.organization_id === organizationId))
        return toProject(byId);
      const [byName] =
        organizationId === undefined
          ? await db.query<ProjectRow>(
              `SELECT ${COLUMNS} FROM projects WHERE name = ? ORDER BY created_at, id LIMIT 1`,
              [idOrName],
            )
          : await db.query<ProjectRow>(
              `SELECT ${COLUMNS} FROM projects WHERE organization_id = ? AND name = ?`,
              [organizationId, idOrName],
            );
      return byName ? toProject(byName) : null;
    },

    async list(organizationId) {
      const rows =
        organizationId === undefined
          ? await db.query<ProjectRow>(`SELECT ${COLUMNS} FROM projects ORDER BY created_at, id`)
          : await db.query<ProjectRow>(
              `SELECT ${COLUMNS} FROM projects WHERE organization_id = ? ORDER BY created_at, id`,
              [organizationId],
            );
      return rows.map(toProject);
    },
  };
}
