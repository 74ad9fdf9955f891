/**
 * WebSocket framing (RFC 6455 §5) for the TCP tunnel, as a byte stream: the payload of binary frames is handed on
 * piece by piece as it is read, never gathered into whole messages, so relaying a frame costs no copy and no
 * allocation whatever its size. No extension is negotiated, so the RSV bits are always 0.
 */
import { isUtf8 } from "node:buffer";

export const Opcode = {
  continuation: 0x0,
  text: 0x1,
  binary: 0x2,
  close: 0x8,
  ping: 0x9,
  pong: 0xa,
} as const;

/** Close codes of protocol violations. */
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_INVALID_PAYLOAD = 1007;
export const CLOSE_MESSAGE_TOO_BIG = 1009;

const MAX_CONTROL_PAYLOAD = 125;
/** Payload lengths above 2^53 - 1 cannot be counted in a JavaScript number. */
const MAX_SAFE_HIGH_WORD = 2 ** 21 - 1;

export interface FrameHandlers {
  /** The next bytes of a binary message: a view into the chunk given to `push`, valid while `push` runs. */
  data(bytes: Buffer): void;
  /** A binary message ended; `length` is its size in bytes (0: an empty message). */
  messageEnd(length: number): void;
  /** A text frame began; its payload is skipped. */
  text(): void;
  /** A close frame; nothing after it is read. `code` is undefined when the frame carried none. */
  close(code: number | undefined, reason: string): void;
  ping(payload: Buffer): void;
  /** The client broke the protocol; nothing after it is read. The connection should close with `code`. */
  error(code: number, message: string): void;
}

/** Whether a close frame may carry this code (RFC 6455 §7.4; 1004-1006 and 1015 are never sent). */
function isValidCloseCode(code: number): boolean {
  return (
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code <= 4999)
  );
}

/** XORs `bytes` with `mask` in place, starting at `phase` bytes into the mask. */
function unmask(bytes: Buffer, mask: Buffer, phase: number): void {
  for (let i = 0; i < bytes.length; i++) bytes[i] ^= mask[(phase + i) & 3];
}

/**
 * Reads the frames a client sends (masked, RFC 6455 §5.3) from the chunks of a socket. Payload bytes are unmasked
 * in place, so the chunks must belong to the caller.
 */
export class FrameReader {
  readonly #on: FrameHandlers;
  /** The header being read: 2 bytes, 2 or 8 of extended length, 4 of mask. */
  readonly #header = Buffer.alloc(14);
  #headerBytes = 0;
  #headerNeeded = 2;
  #inPayload = false;
  #opcode = 0;
  #fin = false;
  readonly #mask = Buffer.alloc(4);
  #masked = false;
  /** Payload bytes of the current frame not read yet, and read so far (the mask's phase). */
  #remaining = 0;
  #read = 0;
  #control: Buffer | undefined;
  #inMessage = false;
  /** Whether the message is text (its payload is skipped). */
  #text = false;
  #messageLength = 0;
  #stopped = false;

  constructor(handlers: FrameHandlers) {
    this.#on = handlers;
  }

  push(chunk: Buffer): void {
    let at = 0;
    while (!this.#stopped && (at < chunk.length || (this.#inPayload && this.#remaining === 0))) {
      if (!this.#inPayload) {
        const take = Math.min(this.#headerNeeded - this.#headerBytes, chunk.length - at);
        chunk.copy(this.#header, this.#headerBytes, at, at + take);
        this.#headerBytes += take;
        at += take;
        if (this.#headerBytes === this.#headerNeeded) this.#parseHeader();
        continue;
      }
      if (this.#remaining > 0) {
        const take = Math.min(this.#remaining, chunk.length - at);
        const piece = chunk.subarray(at, at + take);
        at += take;
        if (this.#masked && (this.#control || !this.#text)) unmask(piece, this.#mask, this.#read);
        this.#remaining -= take;
        this.#read += take;
        if (this.#control) piece.copy(this.#control, this.#read - take);
        else if (!this.#text) this.#on.data(piece);
      }
      if (this.#remaining === 0) this.#endFrame();
    }
  }

  #fail([code, message]: Violation): void {
    this.#stopped = true;
    this.#on.error(code, message);
  }

  /** Called each time the bytes asked for have arrived: first the 2 fixed bytes, then the rest. */
  #parseHeader(): void {
    const h = this.#header;
    if (this.#headerNeeded === 2) {
      const length7 = h[1] & 0x7f;
      const needed = 2 + (length7 === 126 ? 2 : length7 === 127 ? 8 : 0) + ((h[1] & 0x80) !== 0 ? 4 : 0);
      if (needed > 2) {
        this.#headerNeeded = needed;
        return;
      }
    }
    const fin = (h[0] & 0x80) !== 0;
    const opcode = h[0] & 0x0f;
    const length7 = h[1] & 0x7f;
    const high = length7 === 127 ? h.readUInt32BE(2) : 0;
    const length =
      length7 === 126 ? h.readUInt16BE(2) : length7 === 127 ? high * 2 ** 32 + h.readUInt32BE(6) : length7;
    const violation = headerViolation(h[0], h[1], high, length, this.#inMessage);
    if (violation) {
      this.#fail(violation);
      return;
    }
    h.copy(this.#mask, 0, this.#headerNeeded - 4, this.#headerNeeded);
    this.#masked = (this.#mask[0] | this.#mask[1] | this.#mask[2] | this.#mask[3]) !== 0;
    this.#headerBytes = 0;
    this.#headerNeeded = 2;
    this.#opcode = opcode;
    this.#fin = fin;
    this.#remaining = length;
    this.#read = 0;
    this.#inPayload = true;
    if (opcode >= Opcode.close) this.#control = Buffer.alloc(length);
    else if (opcode !== Opcode.continuation) {
      this.#inMessage = true;
      this.#text = opcode === Opcode.text;
      this.#messageLength = 0;
      if (this.#text) this.#on.text();
    }
  }

  #endFrame(): void {
    this.#inPayload = false;
    const control = this.#control;
    if (!control) {
      this.#messageLength += this.#read;
      if (this.#fin) {
        this.#inMessage = false;
        if (!this.#text) this.#on.messageEnd(this.#messageLength);
      }
      return;
    }
    this.#control = undefined;
    if (this.#opcode === Opcode.ping) this.#on.ping(control);
    else if (this.#opcode === Opcode.close) {
      this.#stopped = true;
      const violation = closeViolation(control);
      if (violation) this.#on.error(...violation);
      else if (control.length === 0) this.#on.close(undefined, "");
      else this.#on.close(control.readUInt16BE(0), control.toString("utf8", 2));
    }
  }
}

/** A close code and the reason to close with, when a client broke the protocol. */
type Violation = [code: number, message: string];

/** What is wrong with a client frame's header, if anything (RFC 6455 §5.2, §5.4, §5.5). */
function headerViolation(
  first: number,
  second: number,
  lengthHighWord: number,
  length: number,
  inMessage: boolean,
): Violation | undefined {
  const opcode = first & 0x0f;
  const fin = (first & 0x80) !== 0;
  if ((first & 0x70) !== 0) return [CLOSE_PROTOCOL_ERROR, "RSV bits must be 0"];
  if ((second & 0x80) === 0) return [CLOSE_PROTOCOL_ERROR, "client frames must be masked"];
  if (lengthHighWord > MAX_SAFE_HIGH_WORD) return [CLOSE_MESSAGE_TOO_BIG, "payload length too large"];
  switch (opcode) {
    case Opcode.close:
    case Opcode.ping:
    case Opcode.pong:
      if (!fin) return [CLOSE_PROTOCOL_ERROR, "control frames must not be fragmented"];
      if (length > MAX_CONTROL_PAYLOAD) return [CLOSE_PROTOCOL_ERROR, "control frame too long"];
      return undefined;
    case Opcode.continuation:
      return inMessage ? undefined : [CLOSE_PROTOCOL_ERROR, "continuation frame outside a message"];
    case Opcode.text:
    case Opcode.binary:
      return inMessage ? [CLOSE_PROTOCOL_ERROR, "new message inside a fragmented one"] : undefined;
    default:
      return [CLOSE_PROTOCOL_ERROR, `unknown opcode ${opcode}`];
  }
}

/** What is wrong with a close frame's payload, if anything: a valid code, then UTF-8 (RFC 6455 §5.5.1, §7.4). */
function closeViolation(payload: Buffer): Violation | undefined {
  if (payload.length === 0) return undefined;
  if (payload.length < 2 || !isValidCloseCode(payload.readUInt16BE(0))) {
    return [CLOSE_PROTOCOL_ERROR, "invalid close code"];
  }
  if (!isUtf8(payload.subarray(2))) return [CLOSE_INVALID_PAYLOAD, "close reason is not UTF-8"];
  return undefined;
}

/** The header of a frame the server sends (FIN set, never masked). */
export function frameHeader(opcode: number, length: number): Buffer {
  if (length < 126) {
    const header = Buffer.allocUnsafe(2);
    header[0] = 0x80 | opcode;
    header[1] = length;
    return header;
  }
  if (length < 0x10000) {
    const header = Buffer.allocUnsafe(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(length, 2);
    return header;
  }
  const header = Buffer.allocUnsafe(10);
  header[0] = 0x80 | opcode;
  header[1] = 127;
  header.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
  header.writeUInt32BE(length >>> 0, 6);
  return header;
}

/** The payload of a close frame: the code, then the reason (UTF-8, cut to fit 125 bytes); none without a code. */
export function closePayload(code: number | undefined, reason: string): Buffer {
  if (code === undefined) return Buffer.alloc(0);
  const text = Buffer.from(reason, "utf8");
  const payload = Buffer.allocUnsafe(2 + Math.min(text.length, MAX_CONTROL_PAYLOAD - 2));
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2, 0, payload.length - 2);
  return payload;
}
