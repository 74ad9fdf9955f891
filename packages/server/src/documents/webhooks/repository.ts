import {
  type CursorPageOf,
  DOCUMENT_LIMITS,
  ServiceError,
  WEBHOOK_EVENTS,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventName,
  type WebhookPayload,
} from "@svc/contract";
import type { Db, SqlParam } from "../../store/db.ts";
import { newId, toRfc3339 } from "../../store/ids.ts";
import { type PageQuery, pageClause, toPage } from "../cursor.ts";

/**
 * Webhooks of a project and their deliveries. A delivery (`webhook_deliveries`, id `msg_…`) is one event for one
 * webhook; its id is the `webhook-id` header, the same on every retry. Each try is an attempt
 * (`webhook_attempts`, id `dlv_…`): the API lists attempts, as `WebhookDelivery` items.
 */

export interface WebhookRecord {
  id: string;
  projectId: string;
  url: string;
  /** `whsec_…`; shown once, in the create answer. */
  secret: string;
  events: WebhookEventName[];
  description: string | null;
  createdAt: number;
  updatedAt: number;
}

export type DeliveryStatus = "pending" | "delivered" | "failed";

export interface DeliveryRecord {
  id: string;
  webhookId: string;
  projectId: string;
  event: WebhookEventName;
  /** The exact body sent on every attempt (signatures cover these bytes). */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** A leased delivery with its webhook as it is now; null when the webhook was deleted since. */
export interface ClaimedDelivery extends DeliveryRecord {
  webhook: WebhookRecord | null;
}

export interface AttemptOutcome {
  /** When the attempt started. */
  at: number;
  /** HTTP status of the answer; null when none came. */
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** What becomes of a delivery after an attempt. */
export type DeliveryNext = { status: "pending"; nextAttemptAt: number } | { status: "delivered" | "failed" };

export interface WebhookPatch {
  url?: string;
  secret?: string;
  events?: WebhookEventName[];
  description?: string | null;
}

export interface WebhookRepository {
  /** INVALID_CONFIGURATION when the project already has DOCUMENT_LIMITS.webhooksPerProject webhooks. */
  create(input: {
    projectId: string;
    url: string;
    secret: string;
    events: readonly WebhookEventName[];
    description?: string | null;
  }): Promise<WebhookRecord>;
  /** A live webhook of the project, or null. */
  get(projectId: string, id: string): Promise<WebhookRecord | null>;
  /** The project's live webhooks, oldest first. */
  list(projectId: string): Promise<WebhookRecord[]>;
  /** Applies the fields given; null when there is no such live webhook. */
  update(projectId: string, id: string, patch: WebhookPatch): Promise<WebhookRecord | null>;
  /** Deletes the webhook and fails its pending deliveries; false when there is no such live webhook. */
  delete(projectId: string, id: string): Promise<boolean>;
  /** Queues one delivery of the event for each live webhook of the project that takes it; their ids. */
  enqueue(input: { projectId: string; event: WebhookEventName; payload: WebhookPayload }): Promise<string[]>;
  /**
   * Leases up to `limit` due deliveries to `owner` for `leaseMs`: a leased delivery is claimed by no one else
   * until the lease ends or the attempt is recorded.
   */
  claimDue(input: { owner: string; leaseMs: number; limit: number }): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt and moves the delivery on, releasing the lease. The attempt is recorded in any case;
   * the delivery changes only while `owner` still holds its lease (false otherwise).
   */
  finishAttempt(input: {
    deliveryId: string;
    owner: string;
    attempt: number;
    outcome: AttemptOutcome;
    next: DeliveryNext;
  }): Promise<boolean>;
  /** Ends a leased delivery without an attempt (its webhook is gone). */
  abandon(input: { deliveryId: string; owner: string; reason: string }): Promise<boolean>;
  getDelivery(id: string): Promise<DeliveryRecord | null>;
  /** Attempts to deliver to a live webhook of the project, newest first; null when there is no such webhook. */
  listAttempts(
    projectId: string,
    webhookId: string,
    query: PageQuery,
  ): Promise<CursorPageOf<WebhookDelivery> | null>;
}

interface WebhookRow {
  id: string;
  project_id: string;
  url: string;
  secret: string;
  events: string;
  description: string | null;
  created_at: number;
  updated_at: number;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  project_id: string;
  event: string;
  payload: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

const WEBHOOK_COLUMNS = "id, project_id, url, secret, events, description, created_at, updated_at";
const DELIVERY_COLUMNS =
  "id, webhook_id, project_id, event, payload, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at";

function isEventName(value: unknown): value is WebhookEventName {
  return (WEBHOOK_EVENTS as readonly unknown[]).includes(value);
}

function parseEvents(text: string): WebhookEventName[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter(isEventName) : [];
  } catch {
    return [];
  }
}

function toWebhook(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    secret: row.secret,
    events: parseEvents(row.events),
    description: row.description,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    projectId: row.project_id,
    event: row.event as WebhookEventName,
    payload: row.payload,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
  };
}

/** The API form of a webhook, without its secret. */
export function webhookJson(webhook: WebhookRecord): Webhook {
  return {
    webhook_id: webhook.id,
    url: webhook.url,
    description: webhook.description,
    events: webhook.events,
    enabled: true,
    created_at: toRfc3339(webhook.createdAt),
    updated_at: toRfc3339(webhook.updatedAt),
  };
}

interface AttemptRow {
  id: string;
  /** The attempt's `at`, under the name the list cursors use. */
  created_at: number;
  attempt: number;
  status_code: number | null;
  error: string | null;
  at: number;
  message_id: string;
  webhook_id: string;
  event: string;
  payload: string;
  delivery_status: string;
  delivery_attempts: number;
  next_attempt_at: number;
}

function jobIdOf(payload: string): string {
  try {
    const parsed = JSON.parse(payload) as { job_id?: unknown };
    return typeof parsed.job_id === "string" ? parsed.job_id : "";
  } catch {
    return "";
  }
}

function toAttemptJson(row: AttemptRow): WebhookDelivery {
  const statusCode = row.status_code === null ? null : Number(row.status_code);
  const latestOfPending =
    row.delivery_status === "pending" && Number(row.attempt) === Number(row.delivery_attempts);
  return {
    delivery_id: row.id,
    webhook_id: row.webhook_id,
    message_id: row.message_id,
    event: row.event as WebhookEventName,
    job_id: jobIdOf(row.payload),
    attempt: Number(row.attempt),
    status_code: statusCode,
    error: row.error,
    succeeded: statusCode !== null && statusCode >= 200 && statusCode < 300,
    at: toRfc3339(Number(row.at)),
    next_attempt_at: latestOfPending ? toRfc3339(Number(row.next_attempt_at)) : null,
  };
}

const ATTEMPT_SELECT = `SELECT a.id, a.at AS created_at, a.attempt, a.status_code, a.error, a.at, d.id AS message_id, d.webhook_id,
  d.event, d.payload, d.status AS delivery_status, d.attempts AS delivery_attempts, d.next_attempt_at
  FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id`;

export function createWebhookRepository(db: Db, now: () => number = Date.now): WebhookRepository {
  async function getLive(handle: Db, projectId: string, id: string): Promise<WebhookRecord | null> {
    const [row] = await handle.query<WebhookRow>(
      `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ? AND project_id = ? AND deleted_at IS NULL`,
      [id, projectId],
    );
    return row ? toWebhook(row) : null;
  }

  async function releaseDelivery(
    handle: Db,
    deliveryId: string,
    owner: string,
    fields: Record<string, SqlParam>,
  ): Promise<boolean> {
    const names = Object.keys(fields);
    const { rowCount } = await handle.execute(
      `UPDATE webhook_deliveries SET ${names.map((name) => `${name} = ?`).join(", ")},
         lease_owner = NULL, lease_expires_at = NULL
       WHERE id = ? AND lease_owner = ? AND status = 'pending'`,
      [...Object.values(fields), deliveryId, owner],
    );
    return rowCount > 0;
  }

  return {
    create(input) {
      return db.transaction(async (tx) => {
        // Serializes creations in one project, so the limit holds across servers.
        const lock = tx.dialect === "postgres" ? " FOR UPDATE" : "";
        await tx.query(`SELECT id FROM projects WHERE id = ?${lock}`, [input.projectId]);
        const [{ count }] = await tx.query<{ count: number }>(
          "SELECT COUNT(*) AS count FROM webhooks WHERE project_id = ? AND deleted_at IS NULL",
          [input.projectId],
        );
        if (Number(count) >= DOCUMENT_LIMITS.webhooksPerProject) {
          throw new ServiceError(
            "INVALID_CONFIGURATION",
            `A project has at most ${DOCUMENT_LIMITS.webhooksPerProject} webhooks`,
          );
        }
        const time = now();
        const row: WebhookRow = {
          id: newId("webhook"),
          project_id: input.projectId,
          url: input.url,
          secret: input.secret,
          events: JSON.stringify([...input.events]),
          description: input.description ?? null,
          created_at: time,
          updated_at: time,
        };
        await tx.execute(
          `INSERT INTO webhooks (${WEBHOOK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          Object.values(row),
        );
        return toWebhook(row);
      });
    },

    get: (projectId, id) => getLive(db, projectId, id),

    async list(projectId) {
      const rows = await db.query<WebhookRow>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? AND deleted_at IS NULL
         ORDER BY created_at, id`,
        [projectId],
      );
      return rows.map(toWebhook);
    },

    async update(projectId, id, patch) {
      const fields: Record<string, SqlParam> = {};
      if (patch.url !== undefined) fields.url = patch.url;
      if (patch.secret !== undefined) fields.secret = patch.secret;
      if (patch.events !== undefined) fields.events = JSON.stringify(patch.events);
      if (patch.description !== undefined) fields.description = patch.description;
      fields.updated_at = now();
      const names = Object.keys(fields);
      const { rowCount } = await db.execute(
        `UPDATE webhooks SET ${names.map((name) => `${name} = ?`).join(", ")}
         WHERE id = ? AND project_id = ? AND deleted_at IS NULL`,
        [...Object.values(fields), id, projectId],
      );
      return rowCount > 0 ? getLive(db, projectId, id) : null;
    },

    delete(projectId, id) {
      return db.transaction(async (tx) => {
        const time = now();
        const { rowCount } = await tx.execute(
          "UPDATE webhooks SET deleted_at = ?, updated_at = ? WHERE id = ? AND project_id = ? AND deleted_at IS NULL",
          [time, time, id, projectId],
        );
        if (rowCount === 0) return false;
        await tx.execute(
          `UPDATE webhook_deliveries SET status = 'failed', last_error = 'webhook deleted', next_attempt_at = ?,
             lease_owner = NULL, lease_expires_at = NULL
           WHERE webhook_id = ? AND status = 'pending'`,
          [time, id],
        );
        return true;
      });
    },

    async enqueue({ projectId, event, payload }) {
      const rows = await db.query<WebhookRow>(
        `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE project_id = ? AND deleted_at IS NULL`,
        [projectId],
      );
      const targets = rows.map(toWebhook).filter((webhook) => webhook.events.includes(event));
      if (targets.length === 0) return [];
      const time = now();
      const body = JSON.stringify(payload);
      const ids = targets.map(() => newId("msg"));
      const values: SqlParam[] = [];
      targets.forEach((webhook, i) => {
        values.push(ids[i], webhook.id, projectId, event, body, time, time);
      });
      await db.execute(
        `INSERT INTO webhook_deliveries
           (id, webhook_id, project_id, event, payload, status, attempts, next_attempt_at, created_at)
         VALUES ${targets.map(() => "(?, ?, ?, ?, ?, 'pending', 0, ?, ?)").join(", ")}`,
        values,
      );
      return ids;
    },

    async claimDue({ owner, leaseMs, limit }) {
      const time = now();
      const skipLocked = db.dialect === "postgres" ? " FOR UPDATE SKIP LOCKED" : "";
      const claimed = await db.query<{ id: string }>(
        `UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?
         WHERE id IN (
           SELECT id FROM webhook_deliveries
           WHERE status = 'pending' AND next_attempt_at <= ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
           ORDER BY next_attempt_at, id LIMIT ?${skipLocked}
         )
         RETURNING id`,
        [owner, time + leaseMs, time, time, limit],
      );
      if (claimed.length === 0) return [];
      const ids = claimed.map((row) => row.id);
      const rows = await db.query<DeliveryRow & Record<`w_${keyof WebhookRow}`, unknown>>(
        `SELECT d.id, d.webhook_id, d.project_id, d.event, d.payload, d.status, d.attempts, d.next_attempt_at,
           d.last_status_code, d.last_error, d.created_at, d.delivered_at,
           w.id AS w_id, w.project_id AS w_project_id, w.url AS w_url, w.secret AS w_secret, w.events AS w_events,
           w.description AS w_description, w.created_at AS w_created_at, w.updated_at AS w_updated_at
         FROM webhook_deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id AND w.deleted_at IS NULL
         WHERE d.lease_owner = ? AND d.id IN (${ids.map(() => "?").join(", ")})
         ORDER BY d.next_attempt_at, d.id`,
        [owner, ...ids],
      );
      return rows.map((row) => ({
        ...toDelivery(row),
        webhook:
          row.w_id === null
            ? null
            : toWebhook({
                id: row.w_id as string,
                project_id: row.w_project_id as string,
                url: row.w_url as string,
                secret: row.w_secret as string,
                events: row.w_events as string,
                description: row.w_description as string | null,
                created_at: row.w_created_at as number,
                updated_at: row.w_updated_at as number,
              }),
      }));
    },

    finishAttempt({ deliveryId, owner, attempt, outcome, next }) {
      return db.transaction(async (tx) => {
        await tx.execute(
          `INSERT INTO webhook_attempts (id, delivery_id, attempt, status_code, error, duration_ms, at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [
            newId("dlv"),
            deliveryId,
            attempt,
            outcome.statusCode,
            outcome.error,
            Math.max(0, Math.round(outcome.durationMs)),
            outcome.at,
          ],
        );
        const time = now();
        return releaseDelivery(tx, deliveryId, owner, {
          status: next.status,
          attempts: attempt,
          next_attempt_at: next.status === "pending" ? next.nextAttemptAt : time,
          last_status_code: outcome.statusCode,
          last_error: outcome.error,
          delivered_at: next.status === "delivered" ? time : null,
        });
      });
    },

    abandon({ deliveryId, owner, reason }) {
      return releaseDelivery(db, deliveryId, owner, {
        status: "failed",
        last_error: reason,
        next_attempt_at: now(),
      });
    },

    async getDelivery(id) {
      const [row] = await db.query<DeliveryRow>(
        `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = ?`,
        [id],
      );
      return row ? toDelivery(row) : null;
    },

    async listAttempts(projectId, webhookId, query) {
      if (!(await getLive(db, projectId, webhookId))) return null;
      const limit = query.limit ?? 50;
      const page = pageClause(query, "t");
      const rows = await db.query<AttemptRow>(
        `SELECT * FROM (${ATTEMPT_SELECT} WHERE d.webhook_id = ?) t
         WHERE ${page.where} ORDER BY ${page.order} LIMIT ?`,
        [webhookId, ...page.params, limit + 1],
      );
      const numbered = rows.map((row) => ({ ...row, created_at: Number(row.created_at) }));
      return toPage(numbered, query, limit, toAttemptJson);
    },
  };
}
