import { randomBytes } from "node:crypto";
import type { Logger } from "../../log.ts";
import type { Db } from "../../store/db.ts";
import type { AddressGuard } from "../url-fetch.ts";
import { sendWebhook } from "./delivery.ts";
import {
  type ClaimedDelivery,
  createWebhookRepository,
  type DeliveryNext,
  type WebhookRepository,
} from "./repository.ts";

/** Waits before each retry: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, then 2 h for every later one. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000,
];

export interface WebhookDispatcherOptions extends AddressGuard {
  db: Db;
  /** Attempts per delivery, the first included, before it is marked failed; 8 by default. */
  maxAttempts?: number;
  /** Wait before retry n (after attempt n failed); the last value repeats. DEFAULT_RETRY_DELAYS_MS by default. */
  retryDelaysMs?: readonly number[];
  /** Each wait is scaled by a random factor in [1 - jitter, 1 + jitter]; 0.2 by default. */
  jitter?: number;
  /** Time allowed for one attempt, from connecting to the answer's headers; 10 s by default. */
  attemptTimeoutMs?: number;
  /** How often due deliveries are looked for; 1 s by default. */
  pollIntervalMs?: number;
  /** Deliveries sent at once by this dispatcher; 8 by default. */
  concurrency?: number;
  /** Lease of a claimed delivery; longer than an attempt. attemptTimeoutMs + 60 s by default. */
  leaseMs?: number;
  /** Lease owner name; unique per dispatcher by default. */
  owner?: string;
  now?: () => number;
  /** Reports a delivery that failed for good, or an error of the poll loop. */
  log?: Logger;
}

/**
 * Sends queued webhook deliveries: polls for due ones, leases them (so two servers never send the same one at
 * once), POSTs each signed, and records every attempt. A failed attempt is retried with exponential backoff and
 * jitter until `maxAttempts`; an address that is not public fails the delivery at once.
 */
export class WebhookDispatcher {
  readonly #repo: WebhookRepository;
  readonly #options: WebhookDispatcherOptions;
  readonly #owner: string;
  readonly #maxAttempts: number;
  readonly #delays: readonly number[];
  readonly #jitter: number;
  readonly #attemptTimeoutMs: number;
  readonly #pollIntervalMs: number;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #now: () => number;
  #running = false;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> | undefined;
  #woken = false;

  constructor(options: WebhookDispatcherOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#repo = createWebhookRepository(options.db, this.#now);
    this.#owner = options.owner ?? `dispatcher_${randomBytes(8).toString("hex")}`;
    this.#maxAttempts = options.maxAttempts ?? 8;
    this.#delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.#jitter = options.jitter ?? 0.2;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#concurrency = options.concurrency ?? 8;
    this.#leaseMs = options.leaseMs ?? this.#attemptTimeoutMs + 60_000;
    if (this.#maxAttempts < 1 || this.#delays.length === 0 || this.#leaseMs <= this.#attemptTimeoutMs) {
      throw new RangeError(
        "webhook dispatcher: maxAttempts >= 1, retryDelaysMs non-empty, leaseMs > attemptTimeoutMs",
      );
    }
  }

  /** Starts polling. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops polling and waits for the attempts under way. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#tick;
  }

  /** Looks for due deliveries now rather than at the next poll (after notifyJobEvent in this process). */
  wake(): void {
    if (!this.#running) return;
    if (this.#tick) {
      this.#woken = true;
      return;
    }
    this.#schedule(0);
  }

  /** Sends the deliveries due now, once; resolves when their attempts are recorded. For tests and tools. */
  async runOnce(): Promise<number> {
    const claimed = await this.#repo.claimDue({
      owner: this.#owner,
      leaseMs: this.#leaseMs,
      limit: this.#concurrency,
    });
    await Promise.all(claimed.map((delivery) => this.#deliver(delivery)));
    return claimed.length;
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#tick = this.#poll().finally(() => {
        this.#tick = undefined;
      });
    }, delayMs);
  }

  async #poll(): Promise<void> {
    let sent = 0;
    try {
      this.#woken = false;
      sent = await this.runOnce();
    } catch (error) {
      this.#options.log?.("webhook dispatcher poll failed", { error: (error as Error).message });
    }
    if (!this.#running) return;
    // A full batch suggests more are due: look again at once.
    this.#schedule(sent >= this.#concurrency || this.#woken ? 0 : this.#pollIntervalMs);
  }

  /** The wait before the retry that follows attempt `attempt`, with jitter. */
  retryDelay(attempt: number): number {
    const base = this.#delays[Math.min(attempt, this.#delays.length) - 1];
    const factor = 1 + this.#jitter * (Math.random() * 2 - 1);
    return Math.max(0, Math.round(base * factor));
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const { webhook } = delivery;
    if (!webhook) {
      await this.#repo.abandon({ deliveryId: delivery.id, owner: this.#owner, reason: "webhook deleted" });
      return;
    }
    const attempt = delivery.attempts + 1;
    const at = this.#now();
    const result = await sendWebhook({
      url: webhook.url,
      secret: webhook.secret,
      messageId: delivery.id,
      event: delivery.event,
      body: delivery.payload,
      options: {
        timeoutMs: this.#attemptTimeoutMs,
        now: this.#now,
        lookup: this.#options.lookup,
        allowPrivate: this.#options.allowPrivate,
      },
    });
    let next: DeliveryNext;
    if (result.error === null) next = { status: "delivered" };
    else if (result.permanent || attempt >= this.#maxAttempts) next = { status: "failed" };
    else next = { status: "pending", nextAttemptAt: this.#now() + this.retryDelay(attempt) };
    await this.#repo.finishAttempt({
      deliveryId: delivery.id,
      owner: this.#owner,
      attempt,
      outcome: { at, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs },
      next,
    });
    if (next.status === "failed") {
      this.#options.log?.("webhook delivery failed", {
        delivery_id: delivery.id,
        webhook_id: webhook.id,
        attempts: attempt,
        error: result.error,
      });
    }
  }
}
