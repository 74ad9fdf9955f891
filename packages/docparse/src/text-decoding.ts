import { DocumentLoadError } from "./model.ts";

/** How many bytes are looked at to tell binary from text. */
const SNIFF_BYTES = 8192;

/**
 * Decodes the bytes of a text document: UTF-8 (a byte-order mark is dropped), or, when the bytes are not valid
 * UTF-8, Windows-1252 with a warning. Bytes with NUL characters are binary, not text: DocumentLoadError.
 */
export function decodeText(bytes: Uint8Array, what: string): { text: string; warnings: string[] } {
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (head.includes(0)) {
    throw new DocumentLoadError(`The ${what} document holds binary data (NUL bytes), not text`);
  }
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes), warnings: [] };
  } catch {
    return {
      text: new TextDecoder("windows-1252").decode(bytes),
      warnings: ["The text is not valid UTF-8; it was read as Windows-1252"],
    };
  }
}

/** The text of a backend input: given text as is, or decoded bytes. */
export function inputText(input: { bytes?: Uint8Array; text?: string }, what: string) {
  if (input.text !== undefined) return { text: input.text, warnings: [] as string[] };
  if (input.bytes !== undefined) return decodeText(input.bytes, what);
  throw new DocumentLoadError("The input has neither bytes nor text");
}

/** Offsets at which each line of `text` starts; line breaks are \n, \r\n or \r. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10) starts.push(i + 1);
    else if (code === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}
