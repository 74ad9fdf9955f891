import { signWebhook } from "@svc/contract";
import { type AddressGuard, formatDuration, requestPublicUrl, UrlFetchError } from "../url-fetch.ts";

/** One signed POST of a webhook message, through the same public-address guard as file_url. */

export interface SendResult {
  /** HTTP status of the answer; null when none came. */
  statusCode: number | null;
  /** Why the attempt failed; null when it succeeded (2xx). */
  error: string | null;
  durationMs: number;
  /** The URL can never be delivered to as it is (not http(s), or not a public address): retrying is pointless. */
  permanent: boolean;
}

export interface SendOptions extends AddressGuard {
  timeoutMs: number;
  /** Unix time of the signature, in milliseconds; now by default. */
  now?: () => number;
}

/**
 * POSTs `body` to `url` with the Standard Webhooks headers: `webhook-id` (the message id, stable across
 * retries), `webhook-timestamp` and `webhook-signature`, signed with `secret`. A 2xx answer is success;
 * redirects are not followed. Never throws: failures come back as `error`.
 */
export async function sendWebhook(input: {
  url: string;
  secret: string;
  messageId: string;
  event: string;
  body: string;
  options: SendOptions;
}): Promise<SendResult> {
  const { options } = input;
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new UrlFetchError(
          "timeout",
          `webhook URL did not answer within ${formatDuration(options.timeoutMs)}`,
        ),
      ),
    options.timeoutMs,
  );
  try {
    const url = new URL(input.url);
    const headers = signWebhook({
      secret: input.secret,
      id: input.messageId,
      timestamp: Math.floor((options.now ?? Date.now)() / 1000),
      body: input.body,
    });
    const response = await requestPublicUrl(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        "user-agent": "svc-webhooks/1",
        "webhook-event": input.event,
      },
      body: input.body,
      signal: controller.signal,
      subject: "webhook URL",
      lookup: options.lookup,
      allowPrivate: options.allowPrivate,
    });
    // Only the status matters; the body is not read.
    response.destroy();
    const statusCode = response.statusCode ?? 0;
    const ok = statusCode >= 200 && statusCode < 300;
    const redirect = statusCode >= 300 && statusCode < 400 ? " (redirects are not followed)" : "";
    return {
      statusCode,
      error: ok ? null : `webhook URL answered HTTP ${statusCode}${redirect}`,
      durationMs: elapsed(),
      permanent: false,
    };
  } catch (error) {
    if (error instanceof UrlFetchError) {
      const permanent = error.kind === "invalid_url" || error.kind === "blocked_address";
      return { statusCode: null, error: error.message, durationMs: elapsed(), permanent };
    }
    // A URL that does not parse or a secret that signWebhook refuses.
    return {
      statusCode: null,
      error: `webhook not sent: ${(error as Error).message}`,
      durationMs: elapsed(),
      permanent: true,
    };
  } finally {
    clearTimeout(timer);
  }
}
