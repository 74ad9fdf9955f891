import {
  type documentRoutes,
  generateWebhookSecret,
  ServiceError,
  WEBHOOK_EVENTS,
  type WebhookEventName,
} from "@svc/contract";
import type { Handlers } from "../../api/routes.ts";
import type { Db } from "../../store/db.ts";
import { type AllowPrivate, checkPublicUrl, UrlFetchError } from "../url-fetch.ts";
import { createWebhookRepository, webhookJson } from "./repository.ts";

export type WebhookRoutes = Pick<
  typeof documentRoutes,
  | "createWebhook"
  | "listWebhooks"
  | "getWebhook"
  | "updateWebhook"
  | "deleteWebhook"
  | "listWebhookDeliveries"
>;

export interface WebhookHandlerOptions {
  /** Test hook: addresses a webhook URL may name although not public (loopback receivers). */
  allowPrivate?: AllowPrivate;
  now?: () => number;
}

/**
 * An early check of a webhook URL: http(s), no credentials, not a non-public IP literal. Names are resolved and
 * checked when each delivery connects.
 */
function checkedUrl(url: string, allowPrivate: AllowPrivate | undefined): string {
  try {
    return checkPublicUrl(url, "webhook URL", { allowPrivate }).href;
  } catch (error) {
    if (error instanceof UrlFetchError) throw new ServiceError("INVALID_CONFIGURATION", error.message);
    throw error;
  }
}

/** The contract keeps `enabled`; this schema has no column for it, so every webhook is enabled. */
function checkEnabled(enabled: boolean | undefined): void {
  if (enabled === false) {
    throw new ServiceError(
      "INVALID_CONFIGURATION",
      "Webhooks cannot be disabled on this server; delete the webhook instead",
    );
  }
}

function notFound(id: string): ServiceError {
  return new ServiceError("ENTITY_NOT_FOUND", `No webhook ${id}`);
}

/** Handlers of the webhook routes of the documents API, over the store's database. */
export function webhookHandlers(
  store: { db: Db },
  options: WebhookHandlerOptions = {},
): Handlers<WebhookRoutes> {
  const repo = createWebhookRepository(store.db, options.now);
  return {
    createWebhook: async ({ auth, body }) => {
      checkEnabled(body.enabled);
      const webhook = await repo.create({
        projectId: auth.projectId,
        url: checkedUrl(body.url, options.allowPrivate),
        secret: body.secret ?? generateWebhookSecret(),
        events: (body.events ?? [...WEBHOOK_EVENTS]) as WebhookEventName[],
        description: body.description ?? null,
      });
      return { ...webhookJson(webhook), secret: webhook.secret };
    },
    listWebhooks: async ({ auth }) => ({
      webhooks: (await repo.list(auth.projectId)).map(webhookJson),
    }),
    getWebhook: async ({ auth, params }) => {
      const webhook = await repo.get(auth.projectId, params.webhook_id);
      if (!webhook) throw notFound(params.webhook_id);
      return webhookJson(webhook);
    },
    updateWebhook: async ({ auth, params, body }) => {
      checkEnabled(body.enabled);
      const webhook = await repo.update(auth.projectId, params.webhook_id, {
        url: body.url === undefined ? undefined : checkedUrl(body.url, options.allowPrivate),
        secret: body.secret,
        events: body.events as WebhookEventName[] | undefined,
        description: body.description,
      });
      if (!webhook) throw notFound(params.webhook_id);
      return webhookJson(webhook);
    },
    deleteWebhook: async ({ auth, params }) => {
      if (!(await repo.delete(auth.projectId, params.webhook_id))) throw notFound(params.webhook_id);
    },
    listWebhookDeliveries: async ({ auth, params, query }) => {
      const page = await repo.listAttempts(auth.projectId, params.webhook_id, query);
      if (!page) throw notFound(params.webhook_id);
      return page;
    },
  };
}
