/**
 * Server-Sent Events: one encoder and one incremental parser, shared by the daemon (process run and follow
 * streams), the proxy and the SDK. The parser follows the WHATWG "event stream interpretation" rules: CRLF, LF
 * and CR all end a line, `:` lines are comments, `data` lines are joined with `\n`, an event is dispatched on a
 * blank line, and an unterminated event at the end of the stream is dropped.
 */

/** Media type of every SSE response. */
export const SSE_CONTENT_TYPE = "text/event-stream";

/** The headers of an event stream a server writes itself: never cached, never buffered by a proxy. */
export const SSE_HEADERS = {
  "content-type": SSE_CONTENT_TYPE,
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

/** One dispatched event. `event` is `message` when the stream named none; `id` is the last event id seen. */
export interface SseMessage {
  event: string;
  data: string;
  id: string;
}

export interface SseEventInit {
  /** Event name; omitted for plain `data:` frames (the run stream). */
  event?: string;
  /** Serialized with JSON.stringify. */
  data: unknown;
  id?: string;
  /** Reconnection time in milliseconds. */
  retry?: number;
}

const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Encodes one event. `data` is JSON-serialized; should the serialization hold line breaks, each line becomes
 * its own `data:` field, which the parser joins back with `\n`.
 */
export function encodeSseEvent(init: SseEventInit): string {
  const json = JSON.stringify(init.data);
  if (json === undefined) throw new TypeError("SSE data must be JSON-serializable");
  let out = "";
  if (init.event !== undefined) {
    if (init.event === "" || LINE_BREAK.test(init.event)) throw new RangeError("invalid SSE event name");
    out += `event: ${init.event}\n`;
  }
  if (init.id !== undefined) {
    if (LINE_BREAK.test(init.id) || init.id.includes("\0")) throw new RangeError("invalid SSE event id");
    out += `id: ${init.id}\n`;
  }
  if (init.retry !== undefined) {
    if (!Number.isSafeInteger(init.retry) || init.retry < 0) throw new RangeError("invalid SSE retry");
    out += `retry: ${init.retry}\n`;
  }
  for (const line of json.split(LINE_BREAK)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment line: ignored by parsers, it keeps idle connections (and the proxies between) open. */
export function encodeSseComment(text = ""): string {
  return `${text
    .split(LINE_BREAK)
    .map((line) => `:${line === "" ? "" : ` ${line}`}`)
    .join("\n")}\n\n`;
}

/**
 * Incremental parser: feed text chunks split anywhere (even inside a CRLF pair) and collect the events each
 * chunk completes.
 *
 * @example
 * const parser = new SseParser();
 * for (const chunk of chunks) for (const message of parser.push(chunk)) handle(message);
 */
export class SseParser {
  #line = "";
  #afterCr = false;
  #started = false;
  #event = "";
  #data = "";
  #hasData = false;
  #lastId = "";
  /** The last `retry` field seen, in milliseconds. */
  retry: number | undefined;

  push(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    let text = chunk;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const afterCr = this.#afterCr;
      this.#afterCr = false;
      if (code === 10 /* \n */) {
        // The LF of a CRLF pair (possibly split across chunks): the CR already ended the line.
        if (!afterCr) this.#endLine(this.#line + text.slice(start, i), out);
        this.#line = "";
        start = i + 1;
      } else if (code === 13 /* \r */) {
        this.#endLine(this.#line + text.slice(start, i), out);
        this.#line = "";
        this.#afterCr = true;
        start = i + 1;
      }
    }
    if (start < text.length) this.#line += text.slice(start);
    return out;
  }

  /** Ends the stream: an event without its closing blank line is dropped, as the spec says. */
  end(): void {
    this.#line = "";
    this.#afterCr = false;
    this.#event = "";
    this.#data = "";
    this.#hasData = false;
  }

  #endLine(line: string, out: SseMessage[]): void {
    if (line === "") {
      this.#dispatch(out);
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    const colon = line.indexOf(":");
    let field = line;
    let value = "";
    if (colon !== -1) {
      field = line.slice(0, colon);
      value = line.slice(colon + 1);
      if (value.charCodeAt(0) === 32 /* space */) value = value.slice(1);
    }
    switch (field) {
      case "event":
        this.#event = value;
        break;
      case "data":
        this.#data += this.#hasData ? `\n${value}` : value;
        this.#hasData = true;
        break;
      case "id":
        if (!value.includes("\0")) this.#lastId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break;
    }
  }

  #dispatch(out: SseMessage[]): void {
    if (this.#hasData) {
      out.push({ event: this.#event === "" ? "message" : this.#event, data: this.#data, id: this.#lastId });
    }
    this.#event = "";
    this.#data = "";
    this.#hasData = false;
  }
}

/**
 * Parses a byte or text stream (a fetch body, an http.IncomingMessage) into events. UTF-8 sequences split
 * between chunks are decoded correctly.
 *
 * @example
 * for await (const message of readSseStream(response.body)) console.log(message.event, JSON.parse(message.data));
 */
export async function* readSseStream(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder("utf-8");
  const parser = new SseParser();
  for await (const chunk of source) {
    const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    yield* parser.push(text);
  }
  yield* parser.push(decoder.decode());
  parser.end();
}
