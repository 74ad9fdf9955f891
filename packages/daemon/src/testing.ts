import { FORWARDED_AUTH_HEADER, readSseStream, type SseMessage, signForwardedAuth } from "@svc/contract";
import { type DaemonOptions, type RunningDaemon, startDaemon } from "./daemon.ts";

/** What tests need of a daemon: a real one on 127.0.0.1, an ephemeral port, and a client that signs. */
export const TEST_SECRET = "daemon-test-secret";
export const TEST_SANDBOX_ID = "sbx-test";

export async function startTestDaemon(
  options: Partial<DaemonOptions> = {},
): Promise<{ daemon: RunningDaemon; client: DaemonTestClient }> {
  const daemon = await startDaemon({
    host: "127.0.0.1",
    port: 0,
    authSecret: TEST_SECRET,
    sandboxId: TEST_SANDBOX_ID,
    log: () => {},
    ...options,
  });
  return { daemon, client: new DaemonTestClient(daemon.url) };
}

export interface RequestOptions {
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is. */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** `false`: no forwarded-auth header; `"bad"`: a header signed with another secret. Default: signed. */
  auth?: boolean | "bad";
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON came back
  json: any;
}

/** A client of the runtime API that signs every request as the sandbox proxy would. */
export class DaemonTestClient {
  readonly baseUrl: string;
  readonly secret: string;
  readonly sandboxId: string;

  constructor(baseUrl: string, secret = TEST_SECRET, sandboxId = TEST_SANDBOX_ID) {
    this.baseUrl = baseUrl;
    this.secret = secret;
    this.sandboxId = sandboxId;
  }

  headersFor(method: string, pathAndQuery: string, options: RequestOptions = {}): Record<string, string> {
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth ?? true;
    if (auth !== false) {
      headers[FORWARDED_AUTH_HEADER] = signForwardedAuth({
        secret: auth === "bad" ? "another-secret" : this.secret,
        sandboxId: this.sandboxId,
        method,
        pathAndQuery,
      });
    }
    if (options.json !== undefined) headers["content-type"] ??= "application/json";
    return headers;
  }

  async fetch(method: string, pathAndQuery: string, options: RequestOptions = {}): Promise<Response> {
    return fetch(this.baseUrl + pathAndQuery, {
      method,
      headers: this.headersFor(method, pathAndQuery, options),
      body: options.json !== undefined ? JSON.stringify(options.json) : options.body,
    });
  }

  async request(method: string, pathAndQuery: string, options: RequestOptions = {}): Promise<TestResponse> {
    const response = await this.fetch(method, pathAndQuery, options);
    const text = await response.text();
    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  /** An SSE request read to its end. */
  async sse(
    method: string,
    pathAndQuery: string,
    options: RequestOptions = {},
  ): Promise<{ status: number; headers: Headers; events: SseMessage[]; body?: string }> {
    const response = await this.fetch(method, pathAndQuery, options);
    if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
      return { status: response.status, headers: response.headers, events: [], body: await response.text() };
    }
    const events: SseMessage[] = [];
    for await (const message of readSseStream(response.body)) events.push(message);
    return { status: response.status, headers: response.headers, events };
  }

  /** `POST /processes/run`: the start frame, the output frames and the exit frame, parsed. */
  async run(request: Record<string, unknown>) {
    const result = await this.sse("POST", "/api/v1/processes/run", { json: request });
    // biome-ignore lint/suspicious/noExplicitAny: frames are checked by the tests
    const frames = result.events.map((e) => JSON.parse(e.data) as any);
    return { ...result, frames, lines: frames.filter((f) => "line" in f) };
  }
}

/** Whether a pid is gone (a zombie waiting for its reaper counts as gone). */
export async function isProcessGone(pid: number): Promise<boolean> {
  const { readFile } = await import("node:fs/promises");
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
