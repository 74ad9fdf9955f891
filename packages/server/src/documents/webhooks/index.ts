import type { WebhookEventName, WebhookPayload } from "@svc/contract";
import type { Db } from "../../store/db.ts";
import { createWebhookRepository } from "./repository.ts";

export { DEFAULT_RETRY_DELAYS_MS, WebhookDispatcher, type WebhookDispatcherOptions } from "./dispatcher.ts";
export { createWebhookRepository, type WebhookRepository } from "./repository.ts";
export { type WebhookHandlerOptions, type WebhookRoutes, webhookHandlers } from "./routes.ts";

/**
 * Queues the event for every webhook of the project that takes it; returns how many deliveries were queued.
 * Two statements, no network: call it where a job is created, completes or fails, inside that transaction
 * when there is one (pass its handle), so the event is queued exactly when the job's new status is committed.
 * The WebhookDispatcher sends them; `dispatcher.wake()` sends them without waiting for the next poll.
 */
export async function notifyJobEvent(
  db: Db,
  input: { projectId: string; event: WebhookEventName; payload: WebhookPayload },
  now: () => number = Date.now,
): Promise<number> {
  return (await createWebhookRepository(db, now).enqueue(input)).length;
}
