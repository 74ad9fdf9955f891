import type { Client, Sandbox } from "@svc/sdk";

/** How long a sandbox may take to start: the first of a machine waits for the default image build. */
export const SANDBOX_START_MS = 600_000;

/** Reports a step of long work (a status, an output line) to the client when it asked for progress. */
export type Progress = (message: string) => Promise<void>;

/**
 * What one MCP session holds: the API client it acts with, the sandboxes it made (ended when the session closes,
 * unless kept) and the sandbox `run_code` made on first use and reuses.
 */
export class McpSession {
  readonly client: Client;
  /** Whether `document_parse` and `document_extract` may read local paths (stdio: the user's own machine). */
  readonly localFiles: boolean;
  /** Ids of the sandboxes this session made and ends when it closes. */
  readonly #owned = new Set<string>();
  #codeSandbox: Promise<Sandbox> | undefined;
  #closing: Promise<void> | undefined;

  constructor(client: Client, options: { localFiles: boolean }) {
    this.client = client;
    this.localFiles = options.localFiles;
  }

  /** Creates a sandbox and waits until it runs, reporting its status while it is pending. */
  async createSandbox(
    request: Parameters<Client["sandboxes"]["create"]>[0],
    options: { keep: boolean; progress: Progress; signal?: AbortSignal },
  ): Promise<Sandbox> {
    if (this.#closing) throw new ToolFailure("SESSION_NOT_FOUND", "the session is closing");
    const sandbox = await this.client.sandboxes.create(request);
    if (this.#closing && !options.keep) {
      await sandbox.delete().catch(() => undefined);
      throw new ToolFailure("SESSION_NOT_FOUND", "the session closed while the sandbox was made");
    }
    if (!options.keep) this.#owned.add(sandbox.id);
    await options.progress(`sandbox ${sandbox.id} created, waiting for it to run`);
    const deadline = Date.now() + SANDBOX_START_MS;
    let last = "";
    let interval = 50;
    for (;;) {
      const record = await sandbox.refresh();
      if (record.status === "running") return sandbox;
      if (record.status === "terminated") {
        this.#owned.delete(sandbox.id);
        const reason = record.termination_reason ?? "SANDBOX_TERMINATED";
        throw new ToolFailure(
          reason,
          `sandbox ${sandbox.id} ended before running${record.error_details ? `: ${record.error_details}` : ""}`,
        );
      }
      const state = `sandbox ${sandbox.id} is ${record.status}${record.pending_reason ? ` (${record.pending_reason})` : ""}`;
      if (state !== last) await options.progress(state);
      last = state;
      if (this.#closing) throw new ToolFailure("SESSION_NOT_FOUND", "the session closed");
      if (Date.now() > deadline || options.signal?.aborted) {
        throw new ToolFailure("SANDBOX_NOT_RUNNING", `${state} after ${SANDBOX_START_MS / 1000} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, interval));
      interval = Math.min(interval * 2, 1000);
    }
  }

  /** The session's code sandbox: made on first use, made again when the one it had has ended. */
  async codeSandbox(progress: Progress, signal?: AbortSignal): Promise<Sandbox> {
    if (this.#codeSandbox) {
      const current = await this.#codeSandbox.catch(() => undefined);
      const record = await current?.refresh().catch(() => undefined);
      if (current && record?.status === "running") return current;
      this.#codeSandbox = undefined;
    }
    this.#codeSandbox ??= this.createSandbox({}, { keep: false, progress, signal });
    this.#codeSandbox.catch(() => {
      this.#codeSandbox = undefined;
    });
    return this.#codeSandbox;
  }

  /** A sandbox of the project by id or name, with its record loaded. */
  async sandbox(idOrName: string): Promise<Sandbox> {
    const sandbox = await this.client.sandboxes.get(idOrName);
    if (sandbox.record?.status !== "running") {
      throw new ToolFailure(
        "SANDBOX_NOT_RUNNING",
        `sandbox ${idOrName} is ${sandbox.record?.status ?? "unknown"}, not running`,
      );
    }
    return sandbox;
  }

  /** Forgets a sandbox ended through the session's tools. */
  ended(id: string): void {
    this.#owned.delete(id);
  }

  /** Ids of the sandboxes the session will end when it closes. */
  owned(): string[] {
    return [...this.#owned];
  }

  /** Ends the sandboxes this session made (not the kept ones). Idempotent; never throws. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all(
        [...this.#owned].map(async (id) => {
          try {
            await (await this.client.sandboxes.get(id)).delete();
          } catch {
            // Already gone, or the server is stopping: its timeout ends the sandbox.
          }
        }),
      );
      this.#owned.clear();
    })();
    return this.#closing;
  }
}

/** A tool failure that carries a code of the error catalog, as the API's own errors do. */
export class ToolFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
