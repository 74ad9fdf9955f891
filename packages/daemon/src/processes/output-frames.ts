import { FollowEventName } from "@svc/contract/runtime";
import type { OutputBlock } from "./output.ts";

/**
 * Encoders from output blocks to the wire: SSE frames of the run and follow streams, the JSON string list of
 * the output reads. They write exactly what `encodeSseEvent` and `JSON.stringify` would, line by line, but
 * encode many lines at once where they can (this is the hot path of output throughput): a text with nothing to
 * escape is quoted as is, with its line breaks replaced by the end of one frame and the start of the next; a
 * text without a backslash goes through one `JSON.stringify`, in whose result every `\n` is a line break.
 *
 * The encoders emit strings of about {@link CHUNK_CHARS}: V8 allocates strings over 128 KiB one by one in
 * fresh pages, which makes writing them to a socket several times dearer.
 */
const CHUNK_CHARS = 64 * 1024;

/** Characters JSON escapes inside a string, most frequent first; `\n` separates lines and is handled apart. */
const ESCAPED_CHARACTERS = ['"', "\\", "\t", "\r", "\u001b", "\b", "\f", "\v", "\u0000"];
for (let code = 1; code < 0x20; code++) {
  const char = String.fromCharCode(code);
  if (code !== 0x0a && !ESCAPED_CHARACTERS.includes(char)) ESCAPED_CHARACTERS.push(char);
}

/** Whether JSON.stringify would copy the text unchanged (line breaks aside). */
function needsNoEscape(text: string): boolean {
  // Each `includes` is a native scan; together they beat one regular expression or JSON.stringify pass.
  if (!text.isWellFormed()) return false;
  for (const char of ESCAPED_CHARACTERS) if (text.includes(char)) return false;
  return true;
}

/** Each line of `text` as `head` + its JSON string + `tail`, joined with `separator`. */
function encodeLines(text: string, head: string, tail: string, separator: string): string {
  if (needsNoEscape(text)) return `${head}"${text.replaceAll("\n", `"${tail}${separator}${head}"`)}"${tail}`;
  if (!text.includes("\\")) {
    return head + JSON.stringify(text).replaceAll("\\n", `"${tail}${separator}${head}"`) + tail;
  }
  return text
    .split("\n")
    .map((line) => head + JSON.stringify(line) + tail)
    .join(separator);
}

/** What goes around each line's JSON string; `separator` between two lines. */
interface LineFormat {
  head: string;
  tail: string;
  separator: string;
}

/** Turns blocks into wire text in chunks of about {@link CHUNK_CHARS}. One encoder per response. */
export class OutputEncoder {
  readonly #format: (block: OutputBlock) => LineFormat;
  /** Characters of output per character of text, as last seen: sizes the next piece of text. */
  #expansion = 2;
  #first = true;

  constructor(format: (block: OutputBlock) => LineFormat) {
    this.#format = format;
  }

  /** Encodes `blocks`, handing each chunk to `emit` with whether it is all ASCII. */
  encode(blocks: readonly OutputBlock[], emit: (text: string, ascii: boolean) => void): void {
    let pending = "";
    let pendingAscii = true;
    for (const block of blocks) {
      const { head, tail, separator } = this.#format(block);
      const text = block.text;
      let start = 0;
      while (start <= text.length) {
        const end = pieceEnd(text, start, Math.max(1024, Math.floor(CHUNK_CHARS / this.#expansion)));
        const piece = start === 0 && end === text.length ? text : text.slice(start, end);
        let encoded = encodeLines(piece, head, tail, separator);
        if (!this.#first) encoded = separator + encoded;
        this.#first = false;
        this.#expansion = Math.max(1, encoded.length / Math.max(1, piece.length));
        if (pending.length > 0 && pending.length + encoded.length > CHUNK_CHARS) {
          emit(pending, pendingAscii);
          pending = "";
          pendingAscii = true;
        }
        pending += encoded;
        pendingAscii &&= block.ascii;
        start = end + 1;
      }
    }
    if (pending.length > 0) emit(pending, pendingAscii);
  }
}

/** Where a piece of whole lines of about `chars` characters from `start` ends (a longer line stays whole). */
function pieceEnd(text: string, start: number, chars: number): number {
  if (text.length - start <= chars) return text.length;
  const before = text.lastIndexOf("\n", start + chars);
  if (before >= start) return before;
  const after = text.indexOf("\n", start + chars);
  return after === -1 ? text.length : after;
}

/** `data: {line, timestamp, stream}` frames of `POST /processes/run`. */
export function runEncoder(): OutputEncoder {
  return new OutputEncoder((block) => ({
    head: 'data: {"line":',
    tail: `,"timestamp":${block.timestamp},"stream":"${block.stream}"}\n\n`,
    separator: "",
  }));
}

/** `event: output` frames of the follow streams; `stream` only when `withStream` (`/output/follow`). */
export function followEncoder(withStream: boolean): OutputEncoder {
  return new OutputEncoder((block) => ({
    head: `event: ${FollowEventName.output}\ndata: {"line":`,
    tail: `,"timestamp":${block.timestamp}${withStream ? `,"stream":"${block.stream}"` : ""}}\n\n`,
    separator: "",
  }));
}

/** The lines as JSON strings separated by commas: the inside of the `lines` array of the output reads. */
export function lineListEncoder(): OutputEncoder {
  return new OutputEncoder(() => ({ head: "", tail: "", separator: "," }));
}

/** The final frame of the follow streams. */
export const FOLLOW_EOF_FRAME = `event: ${FollowEventName.eof}\ndata: {}\n\n`;
