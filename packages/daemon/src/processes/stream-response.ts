import type { ServerResponse } from "node:http";
import type { DaemonReply } from "../app.ts";

/** Bytes a response may hold for a slow client before its writer waits. */
const BUFFERED_BYTES = 1024 * 1024;

/**
 * A response the handler writes itself (SSE streams, large JSON documents): takes the reply over,
 * sends the headers, and offers writes that wait while the client is slow, so memory stays bounded.
 */
export class StreamResponse {
  readonly #raw: ServerResponse;
  #closed = false;
  #ended = false;

  constructor(reply: DaemonReply, contentType: string, status = 200) {
    reply.hijack();
    this.#raw = reply.raw;
    this.#raw.writeHead(status, {
      "content-type": contentType,
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    });
    this.#raw.on("close", () => {
      this.#closed = true;
    });
  }

  /** The client went away (or the response ended). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Calls `listener` when the connection closes before {@link end}. */
  onAbort(listener: () => void): void {
    this.#raw.on("close", () => {
      if (!this.#ended) listener();
    });
  }

  /** Writes text (`latin1` only for text known to be ASCII: it then skips UTF-8 length and encoding). */
  write(text: string, encoding: "utf8" | "latin1" = "utf8"): void {
    if (this.#closed || this.#ended || text === "") return;
    this.#raw.write(text, encoding);
  }

  /**
   * Resolves at once while at most {@link BUFFERED_BYTES} wait for a slow client, else once the client has
   * taken them (or the connection closed). Writers await it between batches, so memory stays bounded.
   */
  ready(): Promise<void> | undefined {
    if (this.#closed || this.#raw.writableLength <= BUFFERED_BYTES) return undefined;
    return new Promise<void>((done) => {
      const finish = () => {
        this.#raw.off("drain", finish);
        this.#raw.off("close", finish);
        done();
      };
      this.#raw.on("drain", finish);
      this.#raw.on("close", finish);
    });
  }

  end(text?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#closed) this.#raw.end(text);
  }

  /** Ends the connection abruptly: the client sees a truncated response, not a complete wrong one. */
  abort(): void {
    this.#ended = true;
    this.#raw.destroy();
  }
}
