import { setTimeout as delay } from "node:timers/promises";
import type {
  Completion,
  CompletionRequest,
  ModelProvider,
  ProviderImage,
  ProviderSettings,
} from "./provider.ts";
import { ProviderError } from "./provider.ts";

/**
 * One JSON POST to a provider's API with a time limit per attempt and retries: on 408, 409, 429, every 5xx
 * (Anthropic's 529 "overloaded" included), network errors and timeouts. The wait before a retry is the server's
 * `retry-after-ms` or `Retry-After` (seconds or an HTTP date) when it sends one, at most MAX_RETRY_AFTER_MS;
 * otherwise exponential backoff with full jitter: a random wait up to base × 2^attempt, at most MAX_BACKOFF_MS.
 * Other statuses (400, 401, 403, 404, 422...) are the request's fault and fail at once.
 */

const MAX_BACKOFF_MS = 30_000;
const MAX_RETRY_AFTER_MS = 60_000;
/** Largest answer read from a provider; a larger one is an error (a model's answer is far smaller). */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** Longest error body quoted in a message. */
const MAX_ERROR_TEXT = 500;

export interface RetryPolicy {
  /** Longest wait for one attempt, in milliseconds (connect, send and the whole answer). */
  timeoutMs: number;
  /** Attempts after the first. */
  retries: number;
  /** First backoff step in milliseconds (default 500). */
  backoffBaseMs?: number;
  /** How to wait between attempts (tests record the waits instead of sleeping). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1) (default Math.random). */
  random?: () => number;
  /** Largest answer read (default MAX_ANSWER_BYTES). */
  maxAnswerBytes?: number;
}

const RETRIED_STATUSES = new Set([408, 409, 429]);

function retried(status: number): boolean {
  return RETRIED_STATUSES.has(status) || status >= 500;
}

/** The wait a response asks for, in milliseconds, or null when it names none. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Number(ms);
  const value = headers.get("retry-after");
  if (value === null) return null;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function backoffMs(attempt: number, policy: RetryPolicy): number {
  const base = policy.backoffBaseMs ?? 500;
  const ceiling = Math.min(MAX_BACKOFF_MS, base * 2 ** attempt);
  return Math.floor((policy.random ?? Math.random)() * ceiling);
}

async function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal });
}

/** Posts `body` as JSON and returns the parsed JSON answer of the first successful attempt. */
export async function postJson(
  provider: string,
  url: string,
  headers: Record<string, string>,
  body: unknown,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<unknown> {
  const sleep = policy.sleep ?? defaultSleep;
  const payload = JSON.stringify(body);
  let lastError: ProviderError | null = null;
  for (let attempt = 0; attempt <= policy.retries; attempt++) {
    if (signal?.aborted) throw new ProviderError(provider, "the call was stopped");
    let wait: number | null = null;
    const timeout = AbortSignal.timeout(policy.timeoutMs);
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", ...headers },
        body: payload,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        redirect: "error",
      });
      const maxBytes = policy.maxAnswerBytes ?? MAX_ANSWER_BYTES;
      const text = await boundedText(response, maxBytes);
      if (text === null) throw new ProviderError(provider, `answered with more than ${maxBytes} bytes`);
      if (response.ok) {
        try {
          return JSON.parse(text);
        } catch {
          throw new ProviderError(provider, `answered ${response.status} with a body that is not JSON`);
        }
      }
      lastError = new ProviderError(
        provider,
        `answered ${response.status}: ${text.slice(0, MAX_ERROR_TEXT)}`,
        response.status,
      );
      if (!retried(response.status)) throw lastError;
      const asked = retryAfterMs(response.headers);
      if (asked !== null) wait = Math.min(asked, MAX_RETRY_AFTER_MS);
    } catch (error) {
      if (error instanceof ProviderError) {
        if (error !== lastError || !retried(error.status ?? 0)) throw error;
      } else if (signal?.aborted) {
        throw new ProviderError(provider, "the call was stopped");
      } else if (timeout.aborted) {
        lastError = new ProviderError(provider, `no answer within ${policy.timeoutMs} ms`);
      } else {
        const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
        lastError = new ProviderError(provider, `could not be reached: ${cause}`);
      }
    }
    if (attempt === policy.retries) break;
    try {
      await sleep(wait ?? backoffMs(attempt, policy), signal);
    } catch {
      throw new ProviderError(provider, "the call was stopped");
    }
  }
  throw lastError ?? new ProviderError(provider, "failed");
}

/** The body as text, or null when it is longer than `max` bytes (the rest is not read). */
async function boundedText(response: Response, max: number): Promise<string | null> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > max) {
    await response.body?.cancel();
    return null;
  }
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    // Leaving the loop cancels the rest of the body.
    if (size > max) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Base URL + path, with exactly one slash between them. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** What both protocol clients hold: the configured name, settings and retry policy, and the vision check. */
export abstract class HttpProvider implements ModelProvider {
  readonly name: string;
  readonly vision: boolean;
  protected readonly settings: ProviderSettings;
  protected readonly policy: RetryPolicy;

  constructor(name: string, settings: ProviderSettings, policy: Partial<RetryPolicy> = {}) {
    this.name = name;
    this.vision = settings.vision;
    this.settings = settings;
    this.policy = { timeoutMs: settings.timeoutMs, retries: settings.retries, ...policy };
  }

  /** The request's images; an error when there are some and the provider is not configured for them. */
  protected imagesOf(request: CompletionRequest): ProviderImage[] {
    const images = request.images ?? [];
    if (images.length > 0 && !this.vision) {
      throw new ProviderError(this.name, "this provider is not configured for images (vision: false)");
    }
    return images;
  }

  abstract complete(request: CompletionRequest, signal?: AbortSignal): Promise<Completion>;
}
